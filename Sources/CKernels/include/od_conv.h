// Convolution pieces for image networks (EfficientNet-Lite0). Activations are HWC: pixel
// (y, x) channel c at (y * width + x) * channels + c, so a 1x1 convolution is one od_gemm
// (rows = pixels, columns = output channels) and depthwise filters run 8 channels per vector.
// Padding is given per side so TensorFlow's asymmetric "SAME" padding is expressible.
#ifndef ONDEVICE_CONV_H
#define ONDEVICE_CONV_H
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Unfolds a k x k, stride-s window of an HWC image into rows for a GEMM: output pixel
/// (oy, ox) becomes row oy * out_w + ox of cols, k * k * c floats in (ky, kx, c) order; taps
/// outside the image (padding) are zero. Only rows [row_begin, row_end) of the output are written.
void od_im2col_hwc(const float *in, int64_t h, int64_t w, int64_t c, int64_t k, int64_t stride,
                   int64_t pad_top, int64_t pad_left, int64_t out_h, int64_t out_w, float *cols,
                   int64_t row_begin, int64_t row_end);

/// Direct k x k convolution of an HWC image (groups = 1), the scalar reference for the
/// im2col + od_gemm path: out(oy, ox, co) = clamp(bias[co] + sum in(oy*s - pad_top + ky,
/// ox*s - pad_left + kx, ci) * weight[((co * k + ky) * k + kx) * c + ci], lo, hi).
void od_conv2d_hwc_scalar(const float *in, int64_t h, int64_t w, int64_t c, const float *weight, const float *bias,
                          int64_t c_out, int64_t k, int64_t stride, int64_t pad_top, int64_t pad_left,
                          int64_t out_h, int64_t out_w, float lo, float hi, float *out);

/// Depthwise k x k convolution of an HWC image, stride s, zero padding pad_top/pad_left (the
/// bottom/right padding follows from out_h/out_w): out(oy, ox, c) = bias[c] +
/// sum in(oy*s - pad_top + ky, ox*s - pad_left + kx, c) * weight[(ky * k + kx) * c_total + c],
/// then clamped to [lo, hi] (pass -INFINITY/INFINITY for none; 0/6 is ReLU6). Writes output
/// rows [oy_begin, oy_end), so threads split the rows. AVX2/FMA body chosen at run time.
void od_depthwise_hwc(const float *in, int64_t h, int64_t w, int64_t c, const float *weight, const float *bias,
                      int64_t k, int64_t stride, int64_t pad_top, int64_t pad_left, int64_t out_w,
                      float lo, float hi, float *out, int64_t oy_begin, int64_t oy_end);
/// The portable scalar twin of od_depthwise_hwc, the reference the tests hold it to.
void od_depthwise_hwc_scalar(const float *in, int64_t h, int64_t w, int64_t c, const float *weight, const float *bias,
                             int64_t k, int64_t stride, int64_t pad_top, int64_t pad_left, int64_t out_w,
                             float lo, float hi, float *out, int64_t oy_begin, int64_t oy_end);

/// x[r * cols + j] = clamp(x[r * cols + j] + bias[j], lo, hi) for rows r: the folded batch norm
/// shift and the activation after a convolution's GEMM. bias may be NULL.
void od_bias_clamp_rows(float *x, const float *bias, int64_t rows, int64_t cols, float lo, float hi);

/// out[c] = mean over the h*w pixels of an HWC image (float sums, 8 channels per vector).
void od_global_avg_pool_hwc(const float *in, int64_t pixels, int64_t c, float *out);
/// The portable scalar twin of od_global_avg_pool_hwc (double sums).
void od_global_avg_pool_hwc_scalar(const float *in, int64_t pixels, int64_t c, float *out);

#ifdef __cplusplus
}
#endif
#endif
