// Internal: the prefill GEMM's decoded forms (see gemm_decode.c for the layouts).
#ifndef ONDEVICE_CKERNELS_GEMM_H
#define ONDEVICE_CKERNELS_GEMM_H
#include <stddef.h>
#include <stdint.h>

/// Rows decoded per tile: the tile (2.25 * cols bytes per row) stays in L2 while every token
/// passes over it, and the microkernel takes two rows at a time.
#define GEMM_TILE_ROWS 16

/// Decodes one weight row: u[cols] codes, scale8[cols / 4] expanded scales, mins[cols / 16].
void odk_gemm_decode_row(int32_t type, const void *row, int64_t cols, uint8_t *u, float *scale8, float *mins);

// The two forms of the prefill GEMM behind the public odk_gemm_* entry points, which pick one
// by tier; named here so the tier harness can hold each to the scalar kernels.
// AVX2 (gemm_decode.c, gemm_avx2.c): codes in element order, one scale per 4 elements.
int odk_gemm_supports_avx2(int32_t type);
size_t odk_gemm_panel_row_bytes_avx2(int64_t cols);
void odk_gemm_prepare_avx2(int32_t type, int64_t cols, const void *act, size_t act_row_bytes, int64_t n, void *panel);
void odk_gemm_rows_avx2(int32_t type, int64_t cols, const void *w, size_t w_row_bytes, int64_t row_begin,
                        int64_t row_end, const void *panel, int64_t n_tokens, float *out, int64_t out_stride,
                        void *scratch);
// AVX-512 VNNI (gemm_avx512.c): codes permuted so each int32 lane sums a whole 16-element group;
// also takes Q8_0. Only call on the AVX-512 tier.
int odk_gemm_supports_avx512(int32_t type);
size_t odk_gemm_panel_row_bytes_avx512(int64_t cols);
size_t odk_gemm_scratch_bytes_avx512(int64_t cols);
void odk_gemm_prepare_avx512(int32_t type, int64_t cols, const void *act, size_t act_row_bytes, int64_t n, void *panel);
/// One weight row as the AVX-512 form's tile holds it: permuted codes u[padded cols], scale and
/// min per 16-element group. `portable` 0: the vector decoder for whole 256-element pieces (x86
/// only), 1: the portable decoder alone; both write the same bytes. Scratch: 3 * cols + 256 bytes.
void odk_gemm_tile_row_avx512(int32_t type, const void *row, int64_t cols, uint8_t *u, float *sc, float *mn,
                              void *scratch, int portable);
void odk_gemm_rows_avx512(int32_t type, int64_t cols, const void *w, size_t w_row_bytes, int64_t row_begin,
                          int64_t row_end, const void *panel, int64_t n_tokens, float *out, int64_t out_stride,
                          void *scratch);
#endif
