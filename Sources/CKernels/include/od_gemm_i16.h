// Encoder matrix products in 16-bit integers: weights quantized once at load, one scale per
// output row; each call quantizes its tokens, one scale per token; products of 16-bit pairs
// summed exactly in 32-bit integers (AVX2 vpmaddwd, which issues twice per cycle on the CPUs we
// target, where an FMA does half the multiply-adds per instruction). The quantization steps are
// chosen per matrix so that no sum can leave 32 bits: the weights' levels from the widest row
// (sum |w| / max |w|), then the activations' levels from the exact largest sum |q| of the
// quantized rows. For the encoders we ship that is about 12 bits per operand (k = 384 to 3072),
// several times finer than int8 encoders.
//
// Layouts (both k-major, in pairs of k, so one 32-bit broadcast holds a token's two values):
//   weight panel p (rows 16p ..< 16p+16): for each pair kp, 32 int16: rows 0-7 as
//   (w[r][2kp], w[r][2kp+1]) then rows 8-15; rows past the matrix are zeros.
//   token panel q (tokens 6q ..< 6q+6): for each pair kp, 12 int16: tokens 0-5 as
//   (x[t][2kp], x[t][2kp+1]); tokens past the batch are zeros.
#ifndef ONDEVICE_GEMM_I16_H
#define ONDEVICE_GEMM_I16_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// int16 elements of the packed weights of a (rows, k) matrix.
size_t od_i16_weight_elements(int64_t rows, int64_t k);
/// int16 elements of the packed tokens of a batch of n tokens of k values.
size_t od_i16_token_elements(int64_t n_tokens, int64_t k);

/// Quantizes and packs weight rows (ggml type w_type: 0 = F32, 1 = F16; rows w_row_bytes apart)
/// into `panels`, and each row's scale into row_scales (rows floats). Returns the largest number
/// of levels activations may use with these weights (for od_i16_pack_tokens), or 0 for another
/// type, an odd k, or no memory.
int32_t od_i16_pack_weights(int32_t w_type, int64_t rows, int64_t k, const void *w, size_t w_row_bytes,
                        int16_t *panels, float *row_scales);

/// Quantizes n tokens (rows of k floats, x_stride apart) to `levels` levels each side of zero,
/// one step per token, into `panels`, and each token's step into token_scales (n floats). Rows
/// that are zero or not finite quantize to zeros with step 0.
void od_i16_pack_tokens(int64_t n_tokens, int64_t k, int32_t levels, const float *x, int64_t x_stride,
                        int16_t *panels, float *token_scales);

/// out[t * out_stride + r] = acc(t, r) * (row_scales[r] * token_scales[t]) (+ bias[r]), the last
/// step one fused multiply-add, for t < n_tokens and rows r in weight panels [panel_begin,
/// panel_end) (and r < rows). acc is the exact integer sum. bias may be NULL.
void od_gemm_i16(int64_t k, int64_t rows, const int16_t *w_panels, const float *row_scales, int64_t panel_begin,
                 int64_t panel_end, const int16_t *t_panels, const float *token_scales, int64_t n_tokens,
                 const float *bias, float *out, int64_t out_stride);

/// The portable twin of od_gemm_i16: the same integer sums and the same final rounding, so its
/// output is bit-identical.
void od_gemm_i16_scalar(int64_t k, int64_t rows, const int16_t *w_panels, const float *row_scales,
                        int64_t panel_begin, int64_t panel_end, const int16_t *t_panels, const float *token_scales,
                        int64_t n_tokens, const float *bias, float *out, int64_t out_stride);

#ifdef __cplusplus
}
#endif
#endif
