// C hot loops of the OnDevice engine: quantized dot products, activation quantization and small
// vector ops. Every SIMD kernel has a portable scalar twin; the AVX2/FMA/F16C and AVX-512
// (F/BW/VL + VNNI) (x86) and NEON,
// NEON+dotprod and NEON+i8mm (aarch64) versions are compiled with per-function target
// attributes and chosen at run time, so callers need no compiler flags. The environment
// variable ONDEVICE_KERNELS (scalar, avx2, avx512, neon, dotprod, i8mm), read at the first call, caps
// the tier: the best the CPU has that is not above it; other values are ignored.
//
// Type ids are ggml's `ggml_type` numbers (the same raw values as the Swift `GGMLType`).
#ifndef ONDEVICE_CKERNELS_H
#define ONDEVICE_CKERNELS_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// 1 when the AVX2+FMA+F16C kernels are in use on this CPU (and not capped off); also in the
/// avx512 tier, which keeps them for everything it has no AVX-512 kernel for.
int odk_has_avx2(void);

/// 1 when the AVX-512 VNNI kernels are in use (the avx512 tier).
int odk_has_avx512(void);

/// The kernel tier in use: "scalar", "avx2", "avx512", "neon", "neon-dotprod" or "neon-i8mm".
const char *odk_kernel_tier(void);

/// Activation format a weight type is dotted against: 0 (f32) for F32/F16/BF16 weights,
/// 8 (Q8_0) for Q4_0/Q5_0/Q8_0, 9 (Q8_1) for Q4_1/Q5_1, 15 (Q8_K) for the K-quants,
/// -1 when the weight type has no kernel.
int32_t odk_activation_type(int32_t weight_type);

/// Bytes of one activation row of `cols` elements in the activation format of `weight_type`.
size_t odk_activation_row_bytes(int32_t weight_type, int64_t cols);

/// Quantizes `cols` floats into the activation format of `weight_type` (a copy for f32).
void odk_quantize_activations(int32_t weight_type, const float *x, void *dst, int64_t cols);
/// The same with the portable scalar code (bit-identical results; for tests).
void odk_quantize_activations_scalar(int32_t weight_type, const float *x, void *dst, int64_t cols);

/// Activation quantizers (`k` a multiple of 32, or 256 for Q8_K). Round to nearest even,
/// d = amax / 127 (Q8_K: d = max / -127 with the signed extreme, as ggml does).
void odk_quantize_q8_0(const float *x, void *dst, int64_t k);
void odk_quantize_q8_1(const float *x, void *dst, int64_t k);
void odk_quantize_q8_K(const float *x, void *dst, int64_t k);

/// Dot product of one weight row (`cols` elements of `weight_type`) with one activation row
/// already in the matching activation format. Uses the best kernel for this CPU.
float odk_vec_dot(int32_t weight_type, int64_t cols, const void *w, const void *act);
/// The same with the portable scalar kernel.
float odk_vec_dot_scalar(int32_t weight_type, int64_t cols, const void *w, const void *act);

/// out[t * out_stride + r] = dot(W row r, activation row t) for r in [row_begin, row_end) and
/// t in [0, n_tokens). Weight rows are visited in small blocks so each block is read from
/// memory once and reused for every token.
void odk_matmul_rows(int32_t weight_type, int64_t cols,
                     const void *w, size_t w_row_bytes,
                     int64_t row_begin, int64_t row_end,
                     const void *act, size_t act_row_bytes, int64_t n_tokens,
                     float *out, int64_t out_stride);

/// Prefill GEMM for quantized weights (AVX2 and AVX-512 tiers only; check odk_has_avx2 and
/// odk_gemm_supports, whose answer depends on the tier: AVX-512 also takes Q8_0).
/// Activations already quantized for the weight type are first converted into a panel
/// (odk_gemm_prepare, n rows of odk_gemm_panel_row_bytes), then each row range is computed by
/// odk_gemm_rows with its own scratch of odk_gemm_scratch_bytes(cols). Writes
/// out[t * out_stride + r] for r in [row_begin, row_end), t in [0, n_tokens).
int odk_gemm_supports(int32_t weight_type);
/// The batched matrix-vector kernels (x86 tiers; Q4_0, Q4_1, Q5_0, Q5_1, Q8_0; from 4 tokens),
/// which odk_matmul_rows uses on its own: a caller splitting rows across threads can fill their
/// token panel once (odk_batch_fill_panel, into odk_batch_panel_bytes, 64-byte aligned; 0
/// bytes: not for this type, count or tier) and pass it to each range's odk_batch_rows, which
/// writes out[t * out_stride + r] for r in [row_begin, row_end), t in [0, n_tokens).
size_t odk_batch_panel_bytes(int32_t weight_type, int64_t cols, int64_t n_tokens);
void odk_batch_fill_panel(int32_t weight_type, int64_t cols, const void *act, size_t act_row_bytes,
                          int64_t n_tokens, void *panel);
void odk_batch_rows(int32_t weight_type, int64_t cols, const void *w, size_t w_row_bytes,
                    int64_t row_begin, int64_t row_end, const void *panel, int64_t n_tokens,
                    float *out, int64_t out_stride);
/// 1 when the GEMM decodes this type's weight tiles with vectors (the AVX-512 form of Q4_0,
/// Q5_0, Q8_0, Q4_K, Q5_K and Q6_K), so it beats the matrix-vector kernels from a few tokens.
int odk_gemm_decodes_fast(int32_t weight_type);
/// The fewest tokens at which a batched decode step (one token of each of several sequences)
/// should take the GEMM rather than the matrix-vector kernels, for the tier in use: where the
/// tier has a batched matrix-vector kernel for the type (x86, the 32-element formats), that
/// kernel wins up to this many tokens (INT32_MAX: at every count, as on Q4_1 and Q5_1).
int odk_decode_step_gemm_tokens(int32_t weight_type);
size_t odk_gemm_panel_row_bytes(int64_t cols);
size_t odk_gemm_scratch_bytes(int64_t cols);
void odk_gemm_prepare(int32_t weight_type, int64_t cols, const void *act, size_t act_row_bytes,
                      int64_t n_tokens, void *panel);
void odk_gemm_rows(int32_t weight_type, int64_t cols, const void *w, size_t w_row_bytes,
                   int64_t row_begin, int64_t row_end, const void *panel, int64_t n_tokens,
                   float *out, int64_t out_stride, void *scratch);

/// IEEE half <-> float (round to nearest even), bfloat16 -> float.
float odk_fp16_to_fp32(uint16_t h);
uint16_t odk_fp32_to_fp16(float f);

/// out = x / sqrt(mean(x^2) + eps) * weight (weight may be NULL). out may alias x.
void odk_rms_norm(const float *x, const float *weight, float *out, int64_t n, float eps);
/// x = exp(x - max) / sum, in place.
void odk_softmax(float *x, int64_t n);
/// out = x * sigmoid(x). out may alias x.
void odk_silu(const float *x, float *out, int64_t n);
/// out = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))). out may alias x.
void odk_gelu(const float *x, float *out, int64_t n);
/// GELU as llama.cpp's CPU backend computes it: 0 below -10, x above 10, otherwise the tanh
/// form at x rounded to f16, rounded to f16. out may alias x.
void odk_gelu_f16_rounded(const float *x, float *out, int64_t n);
/// out = a + b, out = a * b elementwise. out may alias a or b.
void odk_add(const float *a, const float *b, float *out, int64_t n);
void odk_mul(const float *a, const float *b, float *out, int64_t n);
/// out += s * x (attention's weighted sum of values); x *= s.
void odk_add_scaled(const float *x, float s, float *out, int64_t n);
void odk_scale(float *x, float s, int64_t n);

#ifdef __cplusplus
}
#endif
#endif
