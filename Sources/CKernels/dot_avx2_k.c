// AVX2 dot kernels for the K-quants against Q8_K activations. Each super-block is walked as
// eight 32-element chunks of small unsigned integers u; a chunk covers two 16-element scale
// groups, so maddubs(u, a) is weighted by an int16 (scale[g], scale[g+1]) lane pair. Formats
// with a fixed offset (Q3_K: u - 4, Q6_K: u - 32) subtract offset * sum_g scale[g] * bsum[g];
// formats with mins subtract dmin * sum_g min[g] * bsum[g].
#include "simd.h"
#if defined(__x86_64__) || defined(__i386__)

/// sum_g w[g] * bsums[g] for 16 int16 weights held as int16 lanes.
AVX2_INLINE int weighted_bsums(__m256i w16, const int16_t *bsums) {
    return hsum_epi32(_mm256_madd_epi16(w16, _mm256_loadu_si256((const __m256i *)bsums)));
}

static AVX2_FN float dot_q2_K(int64_t n, const void *w, const void *a) {
    const blk_q2_K *x = w;
    const blk_q8_K *y = a;
    __m256 acc = _mm256_setzero_ps();
    float mins = 0;
    const __m256i m3 = _mm256_set1_epi8(3);
    for (int64_t i = 0; i < n / QK_K; i++) {
        const uint8_t *sc = x[i].scales;
        __m128i raw = _mm_loadu_si128((const __m128i *)sc);
        __m256i mn16 = _mm256_cvtepu8_epi16(_mm_and_si128(_mm_srli_epi16(raw, 4), _mm_set1_epi8(0x0F)));
        int msum = weighted_bsums(mn16, y[i].bsums);
        __m256i sum = _mm256_setzero_si256();
        for (int half = 0; half < 2; half++) {
            __m256i q = _mm256_loadu_si256((const __m256i *)(x[i].qs + 32 * half));
            const int8_t *ay = y[i].qs + 128 * half;
            const uint8_t *s = sc + 8 * half;
            for (int j = 0; j < 4; j++) {
                __m256i u = _mm256_and_si256(_mm256_srli_epi16(q, 2 * j), m3);
                __m256i sp = scale_pair(s[2 * j] & 0x0F, s[2 * j + 1] & 0x0F);
                sum = _mm256_add_epi32(sum, scaled_chunk(u, ay + 32 * j, sp));
            }
        }
        float da = y[i].d;
        acc = _mm256_fmadd_ps(_mm256_set1_ps(da * half_to_float(x[i].d)), _mm256_cvtepi32_ps(sum), acc);
        mins += da * half_to_float(x[i].dmin) * (float)msum;
    }
    return hsum_ps(acc) - mins;
}

static AVX2_FN float dot_q3_K(int64_t n, const void *w, const void *a) {
    const blk_q3_K *x = w;
    const blk_q8_K *y = a;
    __m256 acc = _mm256_setzero_ps();
    const __m256i m3 = _mm256_set1_epi8(3), m1 = _mm256_set1_epi8(1);
    for (int64_t i = 0; i < n / QK_K; i++) {
        int sc[16];
        q3k_scales(x[i].scales, sc);
        __m256i sc16 = _mm256_setr_epi16((short)sc[0], (short)sc[1], (short)sc[2], (short)sc[3],
                                         (short)sc[4], (short)sc[5], (short)sc[6], (short)sc[7],
                                         (short)sc[8], (short)sc[9], (short)sc[10], (short)sc[11],
                                         (short)sc[12], (short)sc[13], (short)sc[14], (short)sc[15]);
        int offset = 4 * weighted_bsums(sc16, y[i].bsums);
        __m256i hm = _mm256_loadu_si256((const __m256i *)x[i].hmask);
        __m256i sum = _mm256_setzero_si256();
        for (int half = 0; half < 2; half++) {
            __m256i q = _mm256_loadu_si256((const __m256i *)(x[i].qs + 32 * half));
            const int8_t *ay = y[i].qs + 128 * half;
            for (int j = 0; j < 4; j++) {
                __m256i lo = _mm256_and_si256(_mm256_srli_epi16(q, 2 * j), m3);
                __m256i hb = _mm256_and_si256(_mm256_srli_epi16(hm, 4 * half + j), m1);
                __m256i u = _mm256_or_si256(lo, _mm256_slli_epi16(hb, 2));
                int g = 8 * half + 2 * j;
                sum = _mm256_add_epi32(sum, scaled_chunk(u, ay + 32 * j, scale_pair(sc[g], sc[g + 1])));
            }
        }
        sum = _mm256_sub_epi32(sum, _mm256_setr_epi32(offset, 0, 0, 0, 0, 0, 0, 0));
        acc = _mm256_fmadd_ps(_mm256_set1_ps(y[i].d * half_to_float(x[i].d)), _mm256_cvtepi32_ps(sum), acc);
    }
    return hsum_ps(acc);
}

/// Unpacks the eight 6-bit (scale, min) pairs of Q4_K/Q5_K.
AVX2_INLINE void kquant_scales8(const uint8_t *s, int sc[8], int mn[8]) {
    for (int j = 0; j < 8; j++) kquant_scale_min(j, s, &sc[j], &mn[j]);
}

/// Mins term of Q4_K/Q5_K: sub-block j covers bsum groups 2j and 2j+1.
AVX2_INLINE int kquant_min_sum(const int mn[8], const int16_t *bsums) {
    __m256i m16 = _mm256_setr_epi16((short)mn[0], (short)mn[0], (short)mn[1], (short)mn[1],
                                    (short)mn[2], (short)mn[2], (short)mn[3], (short)mn[3],
                                    (short)mn[4], (short)mn[4], (short)mn[5], (short)mn[5],
                                    (short)mn[6], (short)mn[6], (short)mn[7], (short)mn[7]);
    return weighted_bsums(m16, bsums);
}

static AVX2_FN float dot_q4_K(int64_t n, const void *w, const void *a) {
    const blk_q4_K *x = w;
    const blk_q8_K *y = a;
    __m256 acc = _mm256_setzero_ps();
    float mins = 0;
    const __m256i m4 = _mm256_set1_epi8(0x0F);
    for (int64_t i = 0; i < n / QK_K; i++) {
        int sc[8], mn[8];
        kquant_scales8(x[i].scales, sc, mn);
        int msum = kquant_min_sum(mn, y[i].bsums);
        __m256i sum = _mm256_setzero_si256();
        for (int c = 0; c < 4; c++) {
            __m256i q = _mm256_loadu_si256((const __m256i *)(x[i].qs + 32 * c));
            __m256i lo = _mm256_and_si256(q, m4);
            __m256i hi = _mm256_and_si256(_mm256_srli_epi16(q, 4), m4);
            const int8_t *ay = y[i].qs + 64 * c;
            sum = _mm256_add_epi32(sum, scaled_chunk(lo, ay, _mm256_set1_epi16((short)sc[2 * c])));
            sum = _mm256_add_epi32(sum, scaled_chunk(hi, ay + 32, _mm256_set1_epi16((short)sc[2 * c + 1])));
        }
        float da = y[i].d;
        acc = _mm256_fmadd_ps(_mm256_set1_ps(da * half_to_float(x[i].d)), _mm256_cvtepi32_ps(sum), acc);
        mins += da * half_to_float(x[i].dmin) * (float)msum;
    }
    return hsum_ps(acc) - mins;
}

static AVX2_FN float dot_q5_K(int64_t n, const void *w, const void *a) {
    const blk_q5_K *x = w;
    const blk_q8_K *y = a;
    __m256 acc = _mm256_setzero_ps();
    float mins = 0;
    const __m256i m4 = _mm256_set1_epi8(0x0F), m1 = _mm256_set1_epi8(1);
    for (int64_t i = 0; i < n / QK_K; i++) {
        int sc[8], mn[8];
        kquant_scales8(x[i].scales, sc, mn);
        int msum = kquant_min_sum(mn, y[i].bsums);
        __m256i hb = _mm256_loadu_si256((const __m256i *)x[i].qh);
        __m256i sum = _mm256_setzero_si256();
        for (int c = 0; c < 4; c++) {
            __m256i q = _mm256_loadu_si256((const __m256i *)(x[i].qs + 32 * c));
            __m256i h0 = _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(hb, 2 * c), m1), 4);
            __m256i h1 = _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(hb, 2 * c + 1), m1), 4);
            __m256i lo = _mm256_or_si256(_mm256_and_si256(q, m4), h0);
            __m256i hi = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(q, 4), m4), h1);
            const int8_t *ay = y[i].qs + 64 * c;
            sum = _mm256_add_epi32(sum, scaled_chunk(lo, ay, _mm256_set1_epi16((short)sc[2 * c])));
            sum = _mm256_add_epi32(sum, scaled_chunk(hi, ay + 32, _mm256_set1_epi16((short)sc[2 * c + 1])));
        }
        float da = y[i].d;
        acc = _mm256_fmadd_ps(_mm256_set1_ps(da * half_to_float(x[i].d)), _mm256_cvtepi32_ps(sum), acc);
        mins += da * half_to_float(x[i].dmin) * (float)msum;
    }
    return hsum_ps(acc) - mins;
}

static AVX2_FN float dot_q6_K(int64_t n, const void *w, const void *a) {
    const blk_q6_K *x = w;
    const blk_q8_K *y = a;
    __m256 acc = _mm256_setzero_ps();
    const __m256i m4 = _mm256_set1_epi8(0x0F), m3 = _mm256_set1_epi8(3);
    for (int64_t i = 0; i < n / QK_K; i++) {
        const int8_t *sc = x[i].scales;
        __m256i sc16 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)sc));
        int offset = 32 * weighted_bsums(sc16, y[i].bsums);
        __m256i sum = _mm256_setzero_si256();
        for (int half = 0; half < 2; half++) {
            __m256i qa = _mm256_loadu_si256((const __m256i *)(x[i].ql + 64 * half));
            __m256i qb = _mm256_loadu_si256((const __m256i *)(x[i].ql + 64 * half + 32));
            __m256i h = _mm256_loadu_si256((const __m256i *)(x[i].qh + 32 * half));
            // Element groups in order: (ql[0..31] low, qh bits 0-1), (ql[32..63] low, bits 2-3),
            // (ql[0..31] high, bits 4-5), (ql[32..63] high, bits 6-7).
            __m256i u0 = _mm256_or_si256(_mm256_and_si256(qa, m4), _mm256_slli_epi16(_mm256_and_si256(h, m3), 4));
            __m256i u1 = _mm256_or_si256(_mm256_and_si256(qb, m4),
                                         _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(h, 2), m3), 4));
            __m256i u2 = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(qa, 4), m4),
                                         _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(h, 4), m3), 4));
            __m256i u3 = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(qb, 4), m4),
                                         _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(h, 6), m3), 4));
            const int8_t *ay = y[i].qs + 128 * half;
            const int8_t *s = sc + 8 * half;
            sum = _mm256_add_epi32(sum, scaled_chunk(u0, ay, scale_pair(s[0], s[1])));
            sum = _mm256_add_epi32(sum, scaled_chunk(u1, ay + 32, scale_pair(s[2], s[3])));
            sum = _mm256_add_epi32(sum, scaled_chunk(u2, ay + 64, scale_pair(s[4], s[5])));
            sum = _mm256_add_epi32(sum, scaled_chunk(u3, ay + 96, scale_pair(s[6], s[7])));
        }
        sum = _mm256_sub_epi32(sum, _mm256_setr_epi32(offset, 0, 0, 0, 0, 0, 0, 0));
        acc = _mm256_fmadd_ps(_mm256_set1_ps(y[i].d * half_to_float(x[i].d)), _mm256_cvtepi32_ps(sum), acc);
    }
    return hsum_ps(acc);
}

odk_dot_fn odk_avx2_kernel_kquant(int32_t t);

odk_dot_fn odk_avx2_kernel_kquant(int32_t t) {
    switch (t) {
    case T_Q2_K: return dot_q2_K;
    case T_Q3_K: return dot_q3_K;
    case T_Q4_K: return dot_q4_K;
    case T_Q5_K: return dot_q5_K;
    case T_Q6_K: return dot_q6_K;
    default: return NULL;
    }
}
#endif
