// Elementwise activations of VITS's WaveNet-style flows and HiFi-GAN's output.
#ifndef ONDEVICE_GATED_H
#define ONDEVICE_GATED_H
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// out[i] = tanh(a[i]) * sigmoid(b[i]) for i < n: the gated activation of a WaveNet layer.
/// On the AVX2 path both come from one vector exp each (absolute error below 1e-6).
/// out may alias a or b.
void od_gated_tanh(const float *a, const float *b, float *out, int64_t n);
/// The portable twin of od_gated_tanh (libm tanhf and expf).
void od_gated_tanh_scalar(const float *a, const float *b, float *out, int64_t n);

/// out[i] = tanh(x[i]); out may alias x. AVX2 when available (absolute error below 1e-6).
void od_tanh(const float *x, float *out, int64_t n);
/// The portable twin of od_tanh (libm tanhf).
void od_tanh_scalar(const float *x, float *out, int64_t n);

#ifdef __cplusplus
}
#endif
#endif
