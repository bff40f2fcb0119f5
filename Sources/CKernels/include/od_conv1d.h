#ifndef ONDEVICE_CONV1D_H
#define ONDEVICE_CONV1D_H
#include <stdint.h>

/// Direct 1-D convolution (cross-correlation, as PyTorch's Conv1d computes it), channels first:
///   out[o][t] (+)= bias[o] + sum_k sum_i w[(o * kernel + k) * in_ch + i] * x[i * ldx + t + k * dilation]
/// for o < out_ch and t in [t_begin, t_end). The caller pads x: x[i * ldx + t + k * dilation] must
/// be readable for every t < t_end and k < kernel (x points at the first tap of output 0).
/// w is repacked tap-major per output channel (out_ch, kernel, in_ch); bias may be NULL.
/// accumulate: add into out (the bias too) instead of overwriting it.
void od_conv1d(int64_t out_ch, int64_t in_ch, int64_t kernel, int64_t dilation,
               const float *w, const float *bias, const float *x, int64_t ldx,
               float *out, int64_t ldo, int64_t t_begin, int64_t t_end, int accumulate);

/// The same with a portable scalar loop: the reference the tests hold od_conv1d to.
void od_conv1d_scalar(int64_t out_ch, int64_t in_ch, int64_t kernel, int64_t dilation,
                      const float *w, const float *bias, const float *x, int64_t ldx,
                      float *out, int64_t ldo, int64_t t_begin, int64_t t_end, int accumulate);

#endif
