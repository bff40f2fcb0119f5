// AVX2/FMA/F16C dot kernels for float weights and the 32-element block formats. Integer
// products per block (maddubs/madd), one FMA per block into a float accumulator.
#include "simd.h"
#if defined(__x86_64__) || defined(__i386__)

static AVX2_FN float dot_f32(int64_t n, const void *w, const void *a) {
    const float *x = w, *y = a;
    __m256 s0 = _mm256_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
    int64_t i = 0;
    for (; i + 32 <= n; i += 32) {
        prefetch_block(x + i, 128);
        s0 = _mm256_fmadd_ps(_mm256_loadu_ps(x + i), _mm256_loadu_ps(y + i), s0);
        s1 = _mm256_fmadd_ps(_mm256_loadu_ps(x + i + 8), _mm256_loadu_ps(y + i + 8), s1);
        s2 = _mm256_fmadd_ps(_mm256_loadu_ps(x + i + 16), _mm256_loadu_ps(y + i + 16), s2);
        s3 = _mm256_fmadd_ps(_mm256_loadu_ps(x + i + 24), _mm256_loadu_ps(y + i + 24), s3);
    }
    for (; i + 8 <= n; i += 8) s0 = _mm256_fmadd_ps(_mm256_loadu_ps(x + i), _mm256_loadu_ps(y + i), s0);
    float s = hsum_ps(_mm256_add_ps(_mm256_add_ps(s0, s1), _mm256_add_ps(s2, s3)));
    for (; i < n; i++) s += x[i] * y[i];
    return s;
}

static AVX2_FN float dot_f16(int64_t n, const void *w, const void *a) {
    const uint16_t *x = w;
    const float *y = a;
    __m256 s0 = _mm256_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
    int64_t i = 0;
#define LOADH(p) _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(p)))
    for (; i + 32 <= n; i += 32) {
        prefetch_block(x + i, 64);
        s0 = _mm256_fmadd_ps(LOADH(x + i), _mm256_loadu_ps(y + i), s0);
        s1 = _mm256_fmadd_ps(LOADH(x + i + 8), _mm256_loadu_ps(y + i + 8), s1);
        s2 = _mm256_fmadd_ps(LOADH(x + i + 16), _mm256_loadu_ps(y + i + 16), s2);
        s3 = _mm256_fmadd_ps(LOADH(x + i + 24), _mm256_loadu_ps(y + i + 24), s3);
    }
    for (; i + 8 <= n; i += 8) s0 = _mm256_fmadd_ps(LOADH(x + i), _mm256_loadu_ps(y + i), s0);
#undef LOADH
    float s = hsum_ps(_mm256_add_ps(_mm256_add_ps(s0, s1), _mm256_add_ps(s2, s3)));
    for (; i < n; i++) s += half_to_float(x[i]) * y[i];
    return s;
}

static AVX2_FN float dot_bf16(int64_t n, const void *w, const void *a) {
    const uint16_t *x = w;
    const float *y = a;
    __m256 s0 = _mm256_setzero_ps(), s1 = s0;
#define LOADB(p) _mm256_castsi256_ps(_mm256_slli_epi32( \
    _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(p))), 16))
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        prefetch_block(x + i, 32);
        s0 = _mm256_fmadd_ps(LOADB(x + i), _mm256_loadu_ps(y + i), s0);
        s1 = _mm256_fmadd_ps(LOADB(x + i + 8), _mm256_loadu_ps(y + i + 8), s1);
    }
    for (; i + 8 <= n; i += 8) s0 = _mm256_fmadd_ps(LOADB(x + i), _mm256_loadu_ps(y + i), s0);
#undef LOADB
    float s = hsum_ps(_mm256_add_ps(s0, s1));
    for (; i < n; i++) s += bf16_to_f32(x[i]) * y[i];
    return s;
}

#include "blocks32_avx2.h"

// Formats with one scale per block: sum of d_w * d_a * products, two blocks per iteration into
// two accumulators so the FMA latency does not serialize the loop.
#define DOT_SYMMETRIC(name, wblk, ablk, prod)                                                   \
    static AVX2_FN float name(int64_t n, const void *w, const void *a) {                        \
        const wblk *x = w;                                                                      \
        const ablk *y = a;                                                                      \
        int64_t nb = n / QK, i = 0;                                                             \
        __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();                          \
        for (; i + 2 <= nb; i += 2) {                                                           \
            prefetch_block(&x[i], 2 * (int)sizeof(x[i]));                                       \
            acc0 = _mm256_fmadd_ps(half_product(x[i].d, y[i].d),                                \
                                   _mm256_cvtepi32_ps(prod(&x[i], &y[i])), acc0);               \
            acc1 = _mm256_fmadd_ps(half_product(x[i + 1].d, y[i + 1].d),                        \
                                   _mm256_cvtepi32_ps(prod(&x[i + 1], &y[i + 1])), acc1);       \
        }                                                                                       \
        if (i < nb)                                                                             \
            acc0 = _mm256_fmadd_ps(half_product(x[i].d, y[i].d),                               \
                                   _mm256_cvtepi32_ps(prod(&x[i], &y[i])), acc0);               \
        return hsum_ps(_mm256_add_ps(acc0, acc1));                                              \
    }

// Formats with a min: d_w * d_a * products + m_w * s_a. (d, m) and (d, s) are adjacent halves,
// converted together; lane 1 of `mins` accumulates m_w * s_a.
#define DOT_WITH_MIN(name, wblk, prod)                                                          \
    static AVX2_FN float name(int64_t n, const void *w, const void *a) {                        \
        const wblk *x = w;                                                                      \
        const blk_q8_1 *y = a;                                                                  \
        int64_t nb = n / QK, i = 0;                                                             \
        __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();                          \
        __m128 mins = _mm_setzero_ps();                                                         \
        for (; i + 2 <= nb; i += 2) {                                                           \
            __m128 s0 = _mm_mul_ps(half_pair(&x[i].d), half_pair(&y[i].d));                     \
            __m128 s1 = _mm_mul_ps(half_pair(&x[i + 1].d), half_pair(&y[i + 1].d));             \
            acc0 = _mm256_fmadd_ps(_mm256_broadcastss_ps(s0),                                   \
                                   _mm256_cvtepi32_ps(prod(&x[i], &y[i])), acc0);               \
            acc1 = _mm256_fmadd_ps(_mm256_broadcastss_ps(s1),                                   \
                                   _mm256_cvtepi32_ps(prod(&x[i + 1], &y[i + 1])), acc1);       \
            mins = _mm_add_ps(mins, _mm_add_ps(s0, s1));                                        \
        }                                                                                       \
        if (i < nb) {                                                                           \
            __m128 s0 = _mm_mul_ps(half_pair(&x[i].d), half_pair(&y[i].d));                     \
            acc0 = _mm256_fmadd_ps(_mm256_broadcastss_ps(s0),                                   \
                                   _mm256_cvtepi32_ps(prod(&x[i], &y[i])), acc0);               \
            mins = _mm_add_ps(mins, s0);                                                        \
        }                                                                                       \
        return hsum_ps(_mm256_add_ps(acc0, acc1)) + _mm_cvtss_f32(_mm_movehdup_ps(mins));       \
    }

DOT_SYMMETRIC(dot_q4_0, blk_q4_0, blk_q8_0, prod_q4_0)
DOT_SYMMETRIC(dot_q5_0, blk_q5_0, blk_q8_0, prod_q5_0)
DOT_SYMMETRIC(dot_q8_0, blk_q8_0, blk_q8_0, prod_q8_0)
DOT_WITH_MIN(dot_q4_1, blk_q4_1, prod_q4_1)
DOT_WITH_MIN(dot_q5_1, blk_q5_1, prod_q5_1)

odk_dot_fn odk_avx2_kernel_kquant(int32_t t);

odk_dot_fn odk_avx2_kernel(int32_t t) {
    switch (t) {
    case T_F32: return dot_f32;
    case T_F16: return dot_f16;
    case T_BF16: return dot_bf16;
    case T_Q4_0: return dot_q4_0;
    case T_Q4_1: return dot_q4_1;
    case T_Q5_0: return dot_q5_0;
    case T_Q5_1: return dot_q5_1;
    case T_Q8_0: return dot_q8_0;
    default: return odk_avx2_kernel_kquant(t);
    }
}

#else
odk_dot_fn odk_avx2_kernel(int32_t t) { (void)t; return NULL; }
#endif

