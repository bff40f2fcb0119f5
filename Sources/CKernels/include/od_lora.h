// The low-rank products of a LoRA adapter.
#ifndef ONDEVICE_LORA_H
#define ONDEVICE_LORA_H
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// out[j] += scale * sum over k < rank of mid[k] * B[j][k], for j < n: B·mid added into out,
/// from an F16 B ([rank, n] in ggml order: n rows of rank values) in two parts. `blocked` holds
/// the first n & ~7 rows eight at a time, k-major within each group of eight (group g, index k
/// at blocked[(g * rank + k) * 8 ... + 7]), so one contiguous stream feeds eight outputs per
/// vector; `rows` is B itself, read for the last n % 8 rows. Sums run over k in order and are
/// scaled once, as scaling B·mid would. AVX2/F16C where the CPU has it, NEON on ARM.
void od_lora_up_f16(const uint16_t *blocked, const uint16_t *rows, const float *mid, int64_t rank, int64_t n, float scale,
                    float *out);
/// The portable twin of od_lora_up_f16.
void od_lora_up_f16_scalar(const uint16_t *blocked, const uint16_t *rows, const float *mid, int64_t rank, int64_t n, float scale,
                           float *out);

/// mid[r] = A·x for the `rows` rows of an F16 A with `in` values each (several A's that read the
/// same input stacked), every element of x rounded to f16 as read and every result rounded to
/// f16, as ggml rounds an F16 product's input. `rows` is a multiple of 8 and `in` of 16, and A is
/// blocked so that one pass reads it front to back: rows eight at a time, within each eight x's
/// elements sixteen at a time, within those row by row — element (r, i) at
/// ((r / 8) * (in / 16) + i / 16) * 128 + (r % 8) * 16 + i % 16. What follows A in memory (the
/// caller's packed B's) is prefetched while it runs. AVX-512 or AVX2/F16C where the CPU has it, NEON on
/// ARM.
void od_lora_down_f16(const uint16_t *a, int64_t in, int64_t rows, const float *x, float *mid);
/// The portable twin of od_lora_down_f16 (sums in element order).
void od_lora_down_f16_scalar(const uint16_t *a, int64_t in, int64_t rows, const float *x, float *mid);

/// od_lora_down_f16 for `tokens` inputs (rows of x `ldx` floats apart, of mid `ldmid` apart):
/// each token gets the floats od_lora_down_f16 gives it, with A read once per pair of tokens.
void od_lora_down_f16_tokens(const uint16_t *a, int64_t in, int64_t rows, const float *x, int64_t ldx, int64_t tokens, float *mid,
                             int64_t ldmid);
/// od_lora_up_f16 for `tokens` (rows of mid `ldmid` floats apart, of out `ldout` apart): each
/// token gets the floats od_lora_up_f16 gives it, with B converted once per four tokens.
void od_lora_up_f16_tokens(const uint16_t *blocked, const uint16_t *rows, const float *mid, int64_t ldmid, int64_t rank, int64_t n,
                           int64_t tokens, float scale, float *out, int64_t ldout);

/// Writes the `rank` rows of A (row-major, `in` values each, `in` a multiple of 16) into
/// `blocked` in od_lora_down_f16's layout. Rows up to the next multiple of 8 are not written:
/// the caller zeroes them.
void od_lora_pack_a(const uint16_t *a, int64_t in, int64_t rank, uint16_t *blocked);
/// Writes B (n rows of rank values) as od_lora_up_f16 reads it from one pointer: its first n & ~7
/// rows eight at a time, rank-major within each eight, then the other rows as they are.
void od_lora_pack_b(const uint16_t *b, int64_t rank, int64_t n, uint16_t *packed);

/// mid[r] = A·x for the `rows` rows of a Q8_0 A with `in` values each (a multiple of 32) against
/// `xq`, x quantized to Q8_0 (in / 32 blocks of 34 bytes), every result rounded to f16 as the
/// F16 B's input: what ggml computes for a Q8_0 product, exact integer sums per block each
/// multiplied by its two scales. `rows` is a multiple of 8 and A is tiled so that one pass reads
/// it front to back: per eight rows, per 32-value block, the eight rows' f16 scales (16 bytes)
/// then their eight 32-byte code runs, 272 bytes a tile (od_lora_pack_a_q8 writes it). What
/// follows A is prefetched while it runs. AVX2 (also on the avx512 tier) or NEON (SDOT where the
/// CPU has it) where the CPU has it.
void od_lora_down_q8(const uint8_t *a, int64_t in, int64_t rows, const void *xq, float *mid);
/// The portable twin of od_lora_down_q8 (sums in block order).
void od_lora_down_q8_scalar(const uint8_t *a, int64_t in, int64_t rows, const void *xq, float *mid);
/// od_lora_down_q8 for `tokens` inputs (quantized rows `xq_bytes` apart, rows of mid `ldmid`
/// floats apart), each token's floats those od_lora_down_q8 gives it.
void od_lora_down_q8_tokens(const uint8_t *a, int64_t in, int64_t rows, const void *xq, int64_t xq_bytes, int64_t tokens, float *mid,
                            int64_t ldmid);
/// Writes the `rank` rows of a Q8_0 A (row-major, in / 32 blocks of 34 bytes each) into
/// `blocked` in od_lora_down_q8's layout. Rows up to the next multiple of 8 are not written: the
/// caller zeroes them (a zero scale adds nothing).
void od_lora_pack_a_q8(const uint8_t *a, int64_t in, int64_t rank, uint8_t *blocked);

#ifdef __cplusplus
}
#endif
#endif
