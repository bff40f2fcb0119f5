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
#endif
