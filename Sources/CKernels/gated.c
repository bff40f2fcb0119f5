// tanh and the WaveNet gate tanh(a)·sigmoid(b) over arrays. libm's tanhf and expf were ~5% of a
// Piper voice's synthesis (the flows gate 192 channels × 4 layers × 4 couplings per frame); the
// AVX2 path writes both through simd.h's vector exp:
//   tanh(a) = 1 − 2 / (exp(2a) + 1),  sigmoid(b) = 1 / (1 + exp(−b)),
// with a clamped to ±9 (tanh there is 1 to float precision) and −b to ≤ 87 (exp stays finite).
#include <math.h>
#include "od_gated.h"
#include "od_kernels.h"

static void gated_tanh_scalar(const float *a, const float *b, float *out, int64_t n) {
    for (int64_t i = 0; i < n; i++) out[i] = tanhf(a[i]) * (1.0f / (1.0f + expf(-b[i])));
}

static void tanh_scalar(const float *x, float *out, int64_t n) {
    for (int64_t i = 0; i < n; i++) out[i] = tanhf(x[i]);
}

#if defined(__x86_64__) || defined(_M_X64)
#include "simd.h"

AVX2_INLINE __m256 tanh_ps(__m256 a) {
    const __m256 one = _mm256_set1_ps(1.0f), two = _mm256_set1_ps(2.0f), bound = _mm256_set1_ps(9.0f);
    a = _mm256_min_ps(_mm256_max_ps(a, _mm256_sub_ps(_mm256_setzero_ps(), bound)), bound);
    __m256 e = exp_ps(_mm256_mul_ps(a, two));
    return _mm256_sub_ps(one, _mm256_div_ps(two, _mm256_add_ps(e, one)));
}

AVX2_FN static void gated_tanh_avx2(const float *a, const float *b, float *out, int64_t n) {
    const __m256 one = _mm256_set1_ps(1.0f), top = _mm256_set1_ps(87.0f);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 t = tanh_ps(_mm256_loadu_ps(a + i));
        __m256 nb = _mm256_min_ps(_mm256_sub_ps(_mm256_setzero_ps(), _mm256_loadu_ps(b + i)), top);
        __m256 s = _mm256_div_ps(one, _mm256_add_ps(one, exp_ps(nb)));
        _mm256_storeu_ps(out + i, _mm256_mul_ps(t, s));
    }
    gated_tanh_scalar(a + i, b + i, out + i, n - i);
}

AVX2_FN static void tanh_avx2(const float *x, float *out, int64_t n) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(out + i, tanh_ps(_mm256_loadu_ps(x + i)));
    tanh_scalar(x + i, out + i, n - i);
}
#endif

void od_gated_tanh(const float *a, const float *b, float *out, int64_t n) {
#if defined(__x86_64__) || defined(_M_X64)
    if (odk_has_avx2()) {
        gated_tanh_avx2(a, b, out, n);
        return;
    }
#endif
    gated_tanh_scalar(a, b, out, n);
}

void od_gated_tanh_scalar(const float *a, const float *b, float *out, int64_t n) { gated_tanh_scalar(a, b, out, n); }

void od_tanh(const float *x, float *out, int64_t n) {
#if defined(__x86_64__) || defined(_M_X64)
    if (odk_has_avx2()) {
        tanh_avx2(x, out, n);
        return;
    }
#endif
    tanh_scalar(x, out, n);
}

void od_tanh_scalar(const float *x, float *out, int64_t n) { tanh_scalar(x, out, n); }
