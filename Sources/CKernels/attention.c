// Scaled dot-product attention for one query head over a KV-cache slice: the decode loop's
// second hot spot after the weight matvecs. Scalar reference and an AVX2/FMA body chosen at run
// time, so the package needs no compiler flags.
#include "od_attention.h"
#include <math.h>

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>
#define OD_X86 1
#endif

// cap > 0 soft-caps each scaled score as cap * tanh(s / cap) before the softmax (Gemma 2), in
// the order llama.cpp applies it: scale (folded into the query there), cap, softmax.
static inline float cap_score(float s, float cap) {
    return cap > 0 ? cap * tanhf(s / cap) : s;
}

static void attend_scalar(const float *q, const float *keys, const float *values, size_t stride,
                          size_t n_keys, size_t head_dim, float scale, float cap, float *scores, float *out) {
    float max = -INFINITY;
    for (size_t t = 0; t < n_keys; t++) {
        const float *k = keys + t * stride;
        float s = 0;
        for (size_t i = 0; i < head_dim; i++) s += q[i] * k[i];
        s = cap_score(s * scale, cap);
        scores[t] = s;
        if (s > max) max = s;
    }
    float sum = 0;
    for (size_t t = 0; t < n_keys; t++) {
        scores[t] = expf(scores[t] - max);
        sum += scores[t];
    }
    float inv = 1.0f / sum;
    for (size_t i = 0; i < head_dim; i++) out[i] = 0;
    for (size_t t = 0; t < n_keys; t++) {
        const float *v = values + t * stride;
        float w = scores[t] * inv;
        for (size_t i = 0; i < head_dim; i++) out[i] += w * v[i];
    }
}

#ifdef OD_X86
__attribute__((target("avx2,fma")))
static inline float hsum256(__m256 v) {
    __m128 lo = _mm256_castps256_ps128(v), hi = _mm256_extractf128_ps(v, 1);
    lo = _mm_add_ps(lo, hi);
    lo = _mm_add_ps(lo, _mm_movehl_ps(lo, lo));
    lo = _mm_add_ss(lo, _mm_movehdup_ps(lo));
    return _mm_cvtss_f32(lo);
}

__attribute__((target("avx2,fma")))
static void attend_avx2(const float *q, const float *keys, const float *values, size_t stride,
                        size_t n_keys, size_t head_dim, float scale, float cap, float *scores, float *out) {
    // head_dim is a multiple of 8 here (checked by the dispatcher).
    float max = -INFINITY;
    for (size_t t = 0; t < n_keys; t++) {
        const float *k = keys + t * stride;
        __m256 acc = _mm256_setzero_ps();
        for (size_t i = 0; i < head_dim; i += 8)
            acc = _mm256_fmadd_ps(_mm256_loadu_ps(q + i), _mm256_loadu_ps(k + i), acc);
        float s = cap_score(hsum256(acc) * scale, cap);
        scores[t] = s;
        if (s > max) max = s;
    }
    float sum = 0;
    for (size_t t = 0; t < n_keys; t++) {
        scores[t] = expf(scores[t] - max);
        sum += scores[t];
    }
    float inv = 1.0f / sum;
    for (size_t i = 0; i < head_dim; i += 8) _mm256_storeu_ps(out + i, _mm256_setzero_ps());
    for (size_t t = 0; t < n_keys; t++) {
        const float *v = values + t * stride;
        __m256 w = _mm256_set1_ps(scores[t] * inv);
        for (size_t i = 0; i < head_dim; i += 8)
            _mm256_storeu_ps(out + i, _mm256_fmadd_ps(w, _mm256_loadu_ps(v + i), _mm256_loadu_ps(out + i)));
    }
}

static int has_avx2_fma(void) {
    static int cached = -1;
    if (cached < 0) {
        __builtin_cpu_init();
        cached = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    }
    return cached;
}
#endif

#ifdef OD_X86
__attribute__((target("avx2,f16c")))
static void round_f16_avx2(float *x, size_t n) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(x + i), _MM_FROUND_TO_NEAREST_INT);
        _mm256_storeu_ps(x + i, _mm256_cvtph_ps(h));
    }
    for (; i < n; i++) x[i] = (float)(_Float16)x[i];
}

static int has_f16c(void) {
    static int cached = -1;
    if (cached < 0) {
        __builtin_cpu_init();
        cached = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("f16c");
    }
    return cached;
}
#endif

void od_round_to_f16(float *x, size_t n) {
#ifdef OD_X86
    if (has_f16c()) {
        round_f16_avx2(x, n);
        return;
    }
#endif
    for (size_t i = 0; i < n; i++) x[i] = (float)(_Float16)x[i];
}

void od_attend_head_capped(const float *q, const float *keys, const float *values, size_t stride,
                           size_t n_keys, size_t head_dim, float scale, float softcap, float *scores, float *out) {
#ifdef OD_X86
    if (head_dim % 8 == 0 && has_avx2_fma()) {
        attend_avx2(q, keys, values, stride, n_keys, head_dim, scale, softcap, scores, out);
        return;
    }
#endif
    attend_scalar(q, keys, values, stride, n_keys, head_dim, scale, softcap, scores, out);
}

void od_attend_head(const float *q, const float *keys, const float *values, size_t stride,
                    size_t n_keys, size_t head_dim, float scale, float *scores, float *out) {
    od_attend_head_capped(q, keys, values, stride, n_keys, head_dim, scale, 0, scores, out);
}

void od_attend_head_scalar(const float *q, const float *keys, const float *values, size_t stride,
                           size_t n_keys, size_t head_dim, float scale, float softcap, float *scores, float *out) {
    attend_scalar(q, keys, values, stride, n_keys, head_dim, scale, softcap, scores, out);
}
