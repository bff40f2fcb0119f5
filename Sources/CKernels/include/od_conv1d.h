#ifndef ONDEVICE_CONV1D_H
#define ONDEVICE_CONV1D_H
#include <stdint.h>

/// Direct 1-D convolution (cross-correlation, as PyTorch's Conv1d computes it), channels first,
/// with implicit zero padding:
///   out[o][t] (+)= bias[o] + sum_k sum_i w[(o * kernel + k) * in_ch + i] * x[i * ldx + t + k * dilation - pad_left]
/// for o < out_ch and t in [t_begin, t_end), where x[i][s] is 0 outside 0 <= s < x_len.
/// in_slope: the input first goes through a leaky ReLU with this negative slope, in [0, 1]
/// (1 = identity), as HiFi-GAN applies before nearly every convolution.
/// w is repacked tap-major per output channel (out_ch, kernel, in_ch); bias may be NULL.
/// accumulate: add into out (the bias too) instead of overwriting it. out must not alias x.
void od_conv1d(int64_t out_ch, int64_t in_ch, int64_t kernel, int64_t dilation, int64_t pad_left, float in_slope,
               const float *w, const float *bias, const float *x, int64_t ldx, int64_t x_len,
               float *out, int64_t ldo, int64_t t_begin, int64_t t_end, int accumulate);

/// The same with a portable scalar loop: the reference the tests hold od_conv1d to.
void od_conv1d_scalar(int64_t out_ch, int64_t in_ch, int64_t kernel, int64_t dilation, int64_t pad_left, float in_slope,
                      const float *w, const float *bias, const float *x, int64_t ldx, int64_t x_len,
                      float *out, int64_t ldo, int64_t t_begin, int64_t t_end, int accumulate);

#endif
