// Encoder row ops and the exact-search scan (see od_encoder.h). The row ops touch a few
// thousand floats per token, far below the matmuls; LayerNorm and GELU still get AVX2 bodies
// because their scalar forms (a dependent chain of double adds; libm's erff) cost a tenth of a
// layer. The scan reads every stored vector once per query, so it is memory-bound and gets an
// AVX2 body with four independent accumulators per row pair.
#include <math.h>
#include "od_encoder.h"
#include "od_kernels.h"

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>
#define OD_ENC_X86 1
#endif

static void layer_norm_scalar(const float *x, const float *weight, const float *bias, float *out, int64_t n, float eps) {
    // Two passes in double: the mean first, then the variance around it, so a large common
    // offset in the row costs no precision.
    double sum = 0;
    for (int64_t i = 0; i < n; i++) sum += x[i];
    double mean = sum / (double)n;
    double var = 0;
    for (int64_t i = 0; i < n; i++) {
        double d = (double)x[i] - mean;
        var += d * d;
    }
    float inv = (float)(1.0 / sqrt(var / (double)n + (double)eps));
    float m = (float)mean;
    for (int64_t i = 0; i < n; i++) {
        float v = (x[i] - m) * inv;
        if (weight) v *= weight[i];
        if (bias) v += bias[i];
        out[i] = v;
    }
}

#if defined(__x86_64__) || defined(_M_X64)
/// The same two passes in double with eight lanes of partial sums (the scalar loop is one
/// dependent chain of double adds per pass: a twentieth of an encoder layer). The sums differ
/// from the scalar order only in the last bits of a double.
__attribute__((target("avx2,fma")))
static void layer_norm_avx2(const float *x, const float *weight, const float *bias, float *out, int64_t n, float eps) {
    int64_t i = 0;
    __m256d s0 = _mm256_setzero_pd(), s1 = s0;
    for (; i + 8 <= n; i += 8) {
        __m256 v = _mm256_loadu_ps(x + i);
        s0 = _mm256_add_pd(s0, _mm256_cvtps_pd(_mm256_castps256_ps128(v)));
        s1 = _mm256_add_pd(s1, _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)));
    }
    double lanes[4];
    _mm256_storeu_pd(lanes, _mm256_add_pd(s0, s1));
    double sum = (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
    for (int64_t j = i; j < n; j++) sum += x[j];
    double mean = sum / (double)n;
    __m256d vm = _mm256_set1_pd(mean), q0 = _mm256_setzero_pd(), q1 = q0;
    for (i = 0; i + 8 <= n; i += 8) {
        __m256 v = _mm256_loadu_ps(x + i);
        __m256d d0 = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(v)), vm);
        __m256d d1 = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)), vm);
        q0 = _mm256_fmadd_pd(d0, d0, q0);
        q1 = _mm256_fmadd_pd(d1, d1, q1);
    }
    _mm256_storeu_pd(lanes, _mm256_add_pd(q0, q1));
    double var = (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
    for (int64_t j = i; j < n; j++) {
        double d = (double)x[j] - mean;
        var += d * d;
    }
    float inv = (float)(1.0 / sqrt(var / (double)n + (double)eps));
    float m = (float)mean;
    __m256 vmf = _mm256_set1_ps(m), vinv = _mm256_set1_ps(inv);
    for (i = 0; i + 8 <= n; i += 8) {
        __m256 v = _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(x + i), vmf), vinv);
        if (weight) v = _mm256_mul_ps(v, _mm256_loadu_ps(weight + i));
        if (bias) v = _mm256_add_ps(v, _mm256_loadu_ps(bias + i));
        _mm256_storeu_ps(out + i, v);
    }
    for (; i < n; i++) {
        float v = (x[i] - m) * inv;
        if (weight) v *= weight[i];
        if (bias) v += bias[i];
        out[i] = v;
    }
}
#endif

void od_layer_norm(const float *x, const float *weight, const float *bias, float *out, int64_t n, float eps) {
#if defined(__x86_64__) || defined(_M_X64)
    if (odk_has_avx2()) {
        layer_norm_avx2(x, weight, bias, out, n, eps);
        return;
    }
#endif
    layer_norm_scalar(x, weight, bias, out, n, eps);
}

void od_add_layer_norm_rows(float *x, const float *y, const float *weight, const float *bias, int64_t rows, int64_t n,
                            float eps) {
    for (int64_t r = 0; r < rows; r++) {
        float *row = x + r * n;
        const float *add = y + r * n;
        for (int64_t i = 0; i < n; i++) row[i] += add[i];
        od_layer_norm(row, weight, bias, row, n, eps);
    }
}

static void gelu_erf_scalar(const float *x, float *out, int64_t n) {
    const float r = 0.70710678118654752f;  // 1 / sqrt(2)
    for (int64_t i = 0; i < n; i++) out[i] = 0.5f * x[i] * (1.0f + erff(x[i] * r));
}

#if defined(__x86_64__) || defined(_M_X64)
#include "simd.h"
// GELU is a sixth of an encoder layer's time with libm's erff, so the AVX2 path evaluates
// erf(z) = 1 - (a1 t + ... + a5 t^5) exp(-z^2), t = 1 / (1 + p z) for z >= 0 (Abramowitz &
// Stegun 7.1.26, |error| <= 1.5e-7), odd symmetry for z < 0, and simd.h's vector exp.
AVX2_FN static void gelu_erf_avx2(const float *x, float *out, int64_t n) {
    const __m256 half = _mm256_set1_ps(0.5f), one = _mm256_set1_ps(1.0f), sign = _mm256_set1_ps(-0.0f);
    const __m256 r2 = _mm256_set1_ps(0.70710678118654752f), p = _mm256_set1_ps(0.3275911f);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 v = _mm256_loadu_ps(x + i);
        __m256 z = _mm256_mul_ps(v, r2);
        __m256 az = _mm256_andnot_ps(sign, z);
        __m256 t = _mm256_div_ps(one, _mm256_fmadd_ps(p, az, one));
        __m256 q = _mm256_set1_ps(1.061405429f);
        q = _mm256_fmadd_ps(q, t, _mm256_set1_ps(-1.453152027f));
        q = _mm256_fmadd_ps(q, t, _mm256_set1_ps(1.421413741f));
        q = _mm256_fmadd_ps(q, t, _mm256_set1_ps(-0.284496736f));
        q = _mm256_fmadd_ps(q, t, _mm256_set1_ps(0.254829592f));
        q = _mm256_mul_ps(q, t);
        __m256 e = exp_ps(_mm256_xor_ps(_mm256_mul_ps(az, az), sign));
        __m256 erf_abs = _mm256_fnmadd_ps(q, e, one);
        __m256 erf = _mm256_or_ps(erf_abs, _mm256_and_ps(sign, z));
        _mm256_storeu_ps(out + i, _mm256_mul_ps(_mm256_mul_ps(half, v), _mm256_add_ps(one, erf)));
    }
    gelu_erf_scalar(x + i, out + i, n - i);
}

#endif

void od_gelu_erf(const float *x, float *out, int64_t n) {
#if defined(__x86_64__) || defined(_M_X64)
    if (odk_has_avx2()) {
        gelu_erf_avx2(x, out, n);
        return;
    }
#endif
    gelu_erf_scalar(x, out, n);
}

void od_gelu_erf_scalar(const float *x, float *out, int64_t n) { gelu_erf_scalar(x, out, n); }

void od_add_bias_rows(float *x, const float *bias, int64_t rows, int64_t cols) {
    for (int64_t r = 0; r < rows; r++) {
        float *row = x + r * cols;
        for (int64_t c = 0; c < cols; c++) row[c] += bias[c];
    }
}

void od_mean_rows(const float *x, int64_t rows, int64_t cols, float *out) {
    for (int64_t c = 0; c < cols; c++) {
        double s = 0;
        for (int64_t r = 0; r < rows; r++) s += x[r * cols + c];
        out[c] = rows > 0 ? (float)(s / (double)rows) : 0.0f;
    }
}

void od_dot_rows_f32_scalar(const float *query, const float *rows, int64_t n, int64_t dim, float *out) {
    for (int64_t i = 0; i < n; i++) {
        const float *row = rows + i * dim;
        float s = 0;
        for (int64_t j = 0; j < dim; j++) s += query[j] * row[j];
        out[i] = s;
    }
}

#ifdef OD_ENC_X86
__attribute__((target("avx2,fma")))
static inline float hsum8(__m256 v) {
    __m128 lo = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    lo = _mm_add_ps(lo, _mm_movehl_ps(lo, lo));
    lo = _mm_add_ss(lo, _mm_movehdup_ps(lo));
    return _mm_cvtss_f32(lo);
}

__attribute__((target("avx2,fma")))
static void dot_rows_avx2(const float *query, const float *rows, int64_t n, int64_t dim, float *out) {
    // dim is a multiple of 16 (checked by the dispatcher). Two rows at a time share each query
    // load; two accumulators per row hide the FMA latency.
    int64_t i = 0;
    for (; i + 1 < n; i += 2) {
        const float *r0 = rows + i * dim, *r1 = r0 + dim;
        __m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps();
        __m256 b0 = _mm256_setzero_ps(), b1 = _mm256_setzero_ps();
        for (int64_t j = 0; j < dim; j += 16) {
            __m256 q0 = _mm256_loadu_ps(query + j), q1 = _mm256_loadu_ps(query + j + 8);
            a0 = _mm256_fmadd_ps(q0, _mm256_loadu_ps(r0 + j), a0);
            a1 = _mm256_fmadd_ps(q1, _mm256_loadu_ps(r0 + j + 8), a1);
            b0 = _mm256_fmadd_ps(q0, _mm256_loadu_ps(r1 + j), b0);
            b1 = _mm256_fmadd_ps(q1, _mm256_loadu_ps(r1 + j + 8), b1);
        }
        out[i] = hsum8(_mm256_add_ps(a0, a1));
        out[i + 1] = hsum8(_mm256_add_ps(b0, b1));
    }
    for (; i < n; i++) {
        const float *r0 = rows + i * dim;
        __m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps();
        for (int64_t j = 0; j < dim; j += 16) {
            a0 = _mm256_fmadd_ps(_mm256_loadu_ps(query + j), _mm256_loadu_ps(r0 + j), a0);
            a1 = _mm256_fmadd_ps(_mm256_loadu_ps(query + j + 8), _mm256_loadu_ps(r0 + j + 8), a1);
        }
        out[i] = hsum8(_mm256_add_ps(a0, a1));
    }
}

static int enc_has_avx2_fma(void) {
    static int cached = -1;
    if (cached < 0) {
        __builtin_cpu_init();
        cached = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    }
    return cached;
}
#endif

void od_dot_rows_f32(const float *query, const float *rows, int64_t n, int64_t dim, float *out) {
#ifdef OD_ENC_X86
    if (dim % 16 == 0 && enc_has_avx2_fma()) {
        dot_rows_avx2(query, rows, n, dim, out);
        return;
    }
#endif
    od_dot_rows_f32_scalar(query, rows, n, dim, out);
}
