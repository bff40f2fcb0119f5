// The up projection of a LoRA adapter for one decoded token.
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
/// scaled once, as scaling B·mid would. AVX2/F16C where the CPU has it.
void od_lora_up_f16(const uint16_t *blocked, const uint16_t *rows, const float *mid, int64_t rank, int64_t n, float scale,
                    float *out);
/// The portable twin of od_lora_up_f16.
void od_lora_up_f16_scalar(const uint16_t *blocked, const uint16_t *rows, const float *mid, int64_t rank, int64_t n, float scale,
                           float *out);

/// A whole adapted matrix for one decoded token, in one call: mid[k] = dot(row k of an F16 A
/// ([in, rank] in ggml order: rank rows of `in` values), x) through the dot kernel of the tier in
/// use, mid rounded to f16 as ggml rounds an F16 product's input, then od_lora_up_f16. `x` is
/// the input already rounded to f16 values; `mid` is rank floats of scratch.
void od_lora_apply_f16(const uint16_t *a, int64_t in, int64_t rank, const uint16_t *blocked, const uint16_t *rows, int64_t n,
                       const float *x, float *mid, float scale, float *out);

#ifdef __cplusplus
}
#endif
#endif
