// Matrix products for encoder batches: many tokens against F32 or F16 weight rows, as in a
// BERT forward pass over a packed batch. Register-blocked on AVX2/FMA/F16C (packed 16-row
// panels x 6 tokens, or 4 x 3 dot-product tiles for a few tokens), chosen at run time; a scalar
// twin elsewhere.
#ifndef ONDEVICE_GEMM_ROWS_H
#define ONDEVICE_GEMM_ROWS_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// out[t * out_stride + r] = dot(x + t * cols, weight row r) for t in [0, n_tokens) and r in
/// [row_begin, row_end). Weight rows hold `cols` elements of ggml type `w_type` (0 = F32,
/// 1 = F16), `w_row_bytes` apart. Returns 0 when `w_type` is not F32 or F16 (nothing written).
int od_gemm_rows(int32_t w_type, int64_t cols, const void *w, size_t w_row_bytes,
                 int64_t row_begin, int64_t row_end, const float *x, int64_t n_tokens,
                 float *out, int64_t out_stride);

/// The portable scalar twin of od_gemm_rows.
int od_gemm_rows_scalar(int32_t w_type, int64_t cols, const void *w, size_t w_row_bytes,
                        int64_t row_begin, int64_t row_end, const float *x, int64_t n_tokens,
                        float *out, int64_t out_stride);

#ifdef __cplusplus
}
#endif
#endif
