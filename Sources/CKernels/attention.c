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

// Bit for bit the scalar form's order per score and per output element (each key's dot is one
// 8-lane chain over the head, each output lane adds the keys in order from zero); only the
// independent chains are interleaved: four keys at a time for the scores, and four 8-lane
// slices of the output held in registers across all keys for the weighted sum, where a
// load-FMA-store per key and slice chained every key on the store before it.
__attribute__((target("avx2,fma")))
static void attend_avx2(const float *q, const float *keys, const float *values, size_t stride,
                        size_t n_keys, size_t head_dim, float scale, float cap, float *scores, float *out) {
    float max = -INFINITY;
    size_t t = 0;
    for (; t + 4 <= n_keys; t += 4) {
        const float *k0 = keys + t * stride, *k1 = k0 + stride, *k2 = k1 + stride, *k3 = k2 + stride;
        __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
        for (size_t i = 0; i < head_dim; i += 8) {
            __m256 qv = _mm256_loadu_ps(q + i);
            a0 = _mm256_fmadd_ps(qv, _mm256_loadu_ps(k0 + i), a0);
            a1 = _mm256_fmadd_ps(qv, _mm256_loadu_ps(k1 + i), a1);
            a2 = _mm256_fmadd_ps(qv, _mm256_loadu_ps(k2 + i), a2);
            a3 = _mm256_fmadd_ps(qv, _mm256_loadu_ps(k3 + i), a3);
        }
        float s0 = cap_score(hsum256(a0) * scale, cap), s1 = cap_score(hsum256(a1) * scale, cap);
        float s2 = cap_score(hsum256(a2) * scale, cap), s3 = cap_score(hsum256(a3) * scale, cap);
        scores[t] = s0, scores[t + 1] = s1, scores[t + 2] = s2, scores[t + 3] = s3;
        if (s0 > max) max = s0;
        if (s1 > max) max = s1;
        if (s2 > max) max = s2;
        if (s3 > max) max = s3;
    }
    for (; t < n_keys; t++) {
        const float *k = keys + t * stride;
        __m256 acc = _mm256_setzero_ps();
        for (size_t i = 0; i < head_dim; i += 8)
            acc = _mm256_fmadd_ps(_mm256_loadu_ps(q + i), _mm256_loadu_ps(k + i), acc);
        float s = cap_score(hsum256(acc) * scale, cap);
        scores[t] = s;
        if (s > max) max = s;
    }
    float sum = 0;
    for (t = 0; t < n_keys; t++) {
        scores[t] = expf(scores[t] - max);
        sum += scores[t];
    }
    float inv = 1.0f / sum;
    for (t = 0; t < n_keys; t++) scores[t] *= inv;
    size_t i = 0;
    for (; i + 32 <= head_dim; i += 32) {
        __m256 o0 = _mm256_setzero_ps(), o1 = o0, o2 = o0, o3 = o0;
        for (t = 0; t < n_keys; t++) {
            const float *v = values + t * stride + i;
            __m256 w = _mm256_set1_ps(scores[t]);
            o0 = _mm256_fmadd_ps(w, _mm256_loadu_ps(v), o0);
            o1 = _mm256_fmadd_ps(w, _mm256_loadu_ps(v + 8), o1);
            o2 = _mm256_fmadd_ps(w, _mm256_loadu_ps(v + 16), o2);
            o3 = _mm256_fmadd_ps(w, _mm256_loadu_ps(v + 24), o3);
        }
        _mm256_storeu_ps(out + i, o0);
        _mm256_storeu_ps(out + i + 8, o1);
        _mm256_storeu_ps(out + i + 16, o2);
        _mm256_storeu_ps(out + i + 24, o3);
    }
    for (; i < head_dim; i += 8) {
        __m256 o = _mm256_setzero_ps();
        for (t = 0; t < n_keys; t++)
            o = _mm256_fmadd_ps(_mm256_set1_ps(scores[t]), _mm256_loadu_ps(values + t * stride + i), o);
        _mm256_storeu_ps(out + i, o);
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
