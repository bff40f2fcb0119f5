// Elementwise and row ops of BERT-family encoders (post-LN LayerNorm, erf GELU, bias rows,
// mean pooling) and the exact-search dot products of the retrieval index. Scalar C the compiler
// vectorizes, except the search kernel, which has an AVX2/FMA body chosen at run time.
#ifndef ONDEVICE_ENCODER_H
#define ONDEVICE_ENCODER_H
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// out = (x - mean) / sqrt(var + eps) * weight + bias over one row of n floats (biased
/// variance, as torch.nn.LayerNorm). weight and bias may be NULL. out may alias x.
void od_layer_norm(const float *x, const float *weight, const float *bias, float *out, int64_t n, float eps);

/// x[r] = LayerNorm(x[r] + y[r]) for rows r < rows of n floats, in place: a post-LN residual
/// block's tail with the row still in cache.
void od_add_layer_norm_rows(float *x, const float *y, const float *weight, const float *bias, int64_t rows, int64_t n,
                            float eps);

/// out = 0.5 x (1 + erf(x / sqrt 2)): exact GELU (BERT's "gelu"), erf within 1.5e-7 on the
/// AVX2 path. out may alias x.
void od_gelu_erf(const float *x, float *out, int64_t n);
/// The portable twin of od_gelu_erf (libm erff).
void od_gelu_erf_scalar(const float *x, float *out, int64_t n);

/// x[r * cols + c] += bias[c] for every row r.
void od_add_bias_rows(float *x, const float *bias, int64_t rows, int64_t cols);

/// out[c] = mean over r of x[r * cols + c], accumulated in double.
void od_mean_rows(const float *x, int64_t rows, int64_t cols, float *out);

/// out[i] = dot(query, rows + i * dim) for i in [0, n): the exact-search scan. Rows are
/// contiguous float32 vectors of `dim` elements.
void od_dot_rows_f32(const float *query, const float *rows, int64_t n, int64_t dim, float *out);
/// The portable scalar twin of od_dot_rows_f32.
void od_dot_rows_f32_scalar(const float *query, const float *rows, int64_t n, int64_t dim, float *out);

#ifdef __cplusplus
}
#endif
#endif
