#ifndef ONDEVICE_ATTENTION_H
#define ONDEVICE_ATTENTION_H
#include <stddef.h>
#include <stdint.h>

/// One query head attending over a contiguous run of cached keys/values.
///
/// q: (head_dim); keys and values: (n_keys, stride) with this head's slice at column 0 (the
/// caller offsets the pointers); scores: scratch of n_keys floats; out: (head_dim).
/// out = softmax(scale * K q) V. Chooses an AVX2/FMA body at run time when the CPU has one.
void od_attend_head(const float *q, const float *keys, const float *values, size_t stride,
                    size_t n_keys, size_t head_dim, float scale, float *scores, float *out);

/// od_attend_head with each scaled score soft-capped as softcap * tanh(s / softcap) before the
/// softmax (Gemma 2's attention logit soft-capping); softcap <= 0 is no cap.
void od_attend_head_capped(const float *q, const float *keys, const float *values, size_t stride,
                           size_t n_keys, size_t head_dim, float scale, float softcap, float *scores, float *out);

/// The scalar reference of od_attend_head_capped (for tests of the SIMD body).
void od_attend_head_scalar(const float *q, const float *keys, const float *values, size_t stride,
                           size_t n_keys, size_t head_dim, float scale, float softcap, float *scores, float *out);

/// Bidirectional self-attention of one head over a whole sequence of n tokens (an encoder
/// layer): out[r] = softmax(scale * q_r K^T) V for every r < n. q, k and v hold n rows `stride`
/// floats apart with this head's slice at column 0; out rows are ld_out apart. scratch holds
/// od_attend_sequence_scratch(n, head_dim) floats.
void od_attend_sequence(const float *q, const float *k, const float *v, int64_t stride, int64_t n, int64_t head_dim,
                        float scale, float *scratch, float *out, int64_t ld_out);
size_t od_attend_sequence_scratch(int64_t n, int64_t head_dim);

/// Rounds n floats to the nearest half-precision value in place (F16C when available).
/// llama.cpp keeps its KV cache in f16; rounding the cached keys and values the same way makes
/// our logits track it closely.
void od_round_to_f16(float *x, size_t n);

#endif
