// AVX2/FMA/F16C dot kernels for float weights and the 32-element block formats. Integer
// products per block (maddubs/madd), one FMA per block into a float accumulator.
#include "simd.h"
#if defined(__x86_64__) || defined(__i386__)

static AVX2_FN float dot_f32(int64_t n, const void *w, const void *a) {
    const float *x = w, *y = a;
    __m256 s0 = _mm256_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
    int64_t i = 0;
    for (; i + 32 <= n; i += 32) {
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
        s0 = _mm256_fmadd_ps(LOADB(x + i), _mm256_loadu_ps(y + i), s0);
        s1 = _mm256_fmadd_ps(LOADB(x + i + 8), _mm256_loadu_ps(y + i + 8), s1);
    }
    for (; i + 8 <= n; i += 8) s0 = _mm256_fmadd_ps(LOADB(x + i), _mm256_loadu_ps(y + i), s0);
#undef LOADB
    float s = hsum_ps(_mm256_add_ps(s0, s1));
    for (; i < n; i++) s += bf16_to_f32(x[i]) * y[i];
    return s;
}

static AVX2_FN float dot_q4_0(int64_t n, const void *w, const void *a) {
    const blk_q4_0 *x = w;
    const blk_q8_0 *y = a;
    __m256 acc = _mm256_setzero_ps();
    const __m256i eight = _mm256_set1_epi8(8);
    for (int64_t i = 0; i < n / QK; i++) {
        __m256i q = _mm256_sub_epi8(unpack_nibbles16(x[i].qs), eight);
        __m256i p = dot_i8_i8(q, _mm256_loadu_si256((const __m256i *)y[i].qs));
        __m256 d = _mm256_set1_ps(half_to_float(x[i].d) * half_to_float(y[i].d));
        acc = _mm256_fmadd_ps(d, _mm256_cvtepi32_ps(p), acc);
    }
    return hsum_ps(acc);
}

static AVX2_FN float dot_q4_1(int64_t n, const void *w, const void *a) {
    const blk_q4_1 *x = w;
    const blk_q8_1 *y = a;
    __m256 acc = _mm256_setzero_ps();
    float mins = 0;
    for (int64_t i = 0; i < n / QK; i++) {
        __m256i q = unpack_nibbles16(x[i].qs);
        __m256i p = dot_u8_i8(q, _mm256_loadu_si256((const __m256i *)y[i].qs));
        __m256 d = _mm256_set1_ps(half_to_float(x[i].d) * half_to_float(y[i].d));
        acc = _mm256_fmadd_ps(d, _mm256_cvtepi32_ps(p), acc);
        mins += half_to_float(x[i].m) * half_to_float(y[i].s);
    }
    return hsum_ps(acc) + mins;
}

static AVX2_FN float dot_q5_0(int64_t n, const void *w, const void *a) {
    const blk_q5_0 *x = w;
    const blk_q8_0 *y = a;
    __m256 acc = _mm256_setzero_ps();
    const __m256i sixteen = _mm256_set1_epi8(16);
    for (int64_t i = 0; i < n / QK; i++) {
        uint32_t qh;
        memcpy(&qh, x[i].qh, 4);
        __m256i hi = _mm256_and_si256(expand_bits(qh), sixteen);
        __m256i q = _mm256_sub_epi8(_mm256_or_si256(unpack_nibbles16(x[i].qs), hi), sixteen);
        __m256i p = dot_i8_i8(q, _mm256_loadu_si256((const __m256i *)y[i].qs));
        __m256 d = _mm256_set1_ps(half_to_float(x[i].d) * half_to_float(y[i].d));
        acc = _mm256_fmadd_ps(d, _mm256_cvtepi32_ps(p), acc);
    }
    return hsum_ps(acc);
}

static AVX2_FN float dot_q5_1(int64_t n, const void *w, const void *a) {
    const blk_q5_1 *x = w;
    const blk_q8_1 *y = a;
    __m256 acc = _mm256_setzero_ps();
    float mins = 0;
    const __m256i sixteen = _mm256_set1_epi8(16);
    for (int64_t i = 0; i < n / QK; i++) {
        uint32_t qh;
        memcpy(&qh, x[i].qh, 4);
        __m256i hi = _mm256_and_si256(expand_bits(qh), sixteen);
        __m256i q = _mm256_or_si256(unpack_nibbles16(x[i].qs), hi);
        __m256i p = dot_u8_i8(q, _mm256_loadu_si256((const __m256i *)y[i].qs));
        __m256 d = _mm256_set1_ps(half_to_float(x[i].d) * half_to_float(y[i].d));
        acc = _mm256_fmadd_ps(d, _mm256_cvtepi32_ps(p), acc);
        mins += half_to_float(x[i].m) * half_to_float(y[i].s);
    }
    return hsum_ps(acc) + mins;
}

static AVX2_FN float dot_q8_0(int64_t n, const void *w, const void *a) {
    const blk_q8_0 *x = w;
    const blk_q8_0 *y = a;
    __m256 acc = _mm256_setzero_ps();
    for (int64_t i = 0; i < n / QK; i++) {
        __m256i p = dot_i8_i8(_mm256_loadu_si256((const __m256i *)x[i].qs),
                              _mm256_loadu_si256((const __m256i *)y[i].qs));
        __m256 d = _mm256_set1_ps(half_to_float(x[i].d) * half_to_float(y[i].d));
        acc = _mm256_fmadd_ps(d, _mm256_cvtepi32_ps(p), acc);
    }
    return hsum_ps(acc);
}

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
