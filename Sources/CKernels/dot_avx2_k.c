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

AVX2_INLINE int hsum_epi32_128(__m128i x) {
    x = _mm_add_epi32(x, _mm_shuffle_epi32(x, _MM_SHUFFLE(1, 0, 3, 2)));
    x = _mm_add_epi32(x, _mm_shuffle_epi32(x, _MM_SHUFFLE(2, 3, 0, 1)));
    return _mm_cvtsi128_si32(x);
}

/// Shuffle control broadcasting int16 element `lo` over the low 128-bit lane and `hi` over the
/// high lane (indices within each lane's copy of eight scales).
AVX2_INLINE __m256i pick16(int lo, int hi) {
    return _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_set1_epi16((short)(2 * lo | (2 * lo + 1) << 8))),
                                   _mm_set1_epi16((short)(2 * hi | (2 * hi + 1) << 8)), 1);
}

/// Per-16-group scale pairs for the four chunks of one 128-element half: `sc8` holds that
/// half's eight int16 scales; chunk k covers groups 2k (low lane) and 2k+1 (high lane).
AVX2_INLINE void group_pairs(__m128i sc8, __m256i out[4]) {
    __m256i both = _mm256_broadcastsi128_si256(sc8);
    for (int k = 0; k < 4; k++) out[k] = _mm256_shuffle_epi8(both, pick16(2 * k, 2 * k + 1));
}

static AVX2_FN float dot_q2_K(int64_t n, const void *w, const void *a) {
    const blk_q2_K *x = w;
    const blk_q8_K *y = a;
    __m256 acc = _mm256_setzero_ps();
    float mins = 0;
    const __m256i m3 = _mm256_set1_epi8(3);
    for (int64_t i = 0; i < n / QK_K; i++) {
        prefetch_block(&x[i], (int)sizeof(x[i]));
        __m128i raw = _mm_loadu_si128((const __m128i *)x[i].scales);
        __m128i sc = _mm_and_si128(raw, _mm_set1_epi8(0x0F));
        __m128i mn = _mm_and_si128(_mm_srli_epi16(raw, 4), _mm_set1_epi8(0x0F));
        int msum = weighted_bsums(_mm256_cvtepu8_epi16(mn), y[i].bsums);
        __m256i sum = _mm256_setzero_si256();
        for (int half = 0; half < 2; half++) {
            __m256i pairs[4];
            group_pairs(_mm_cvtepu8_epi16(half ? _mm_srli_si128(sc, 8) : sc), pairs);
            __m256i q = _mm256_loadu_si256((const __m256i *)(x[i].qs + 32 * half));
            const int8_t *ay = y[i].qs + 128 * half;
            for (int j = 0; j < 4; j++) {
                __m256i u = _mm256_and_si256(_mm256_srli_epi16(q, 2 * j), m3);
                sum = _mm256_add_epi32(sum, scaled_chunk(u, ay + 32 * j, pairs[j]));
            }
        }
        float da = y[i].d;
        acc = _mm256_fmadd_ps(_mm256_set1_ps(da * half_to_float(x[i].d)), _mm256_cvtepi32_ps(sum), acc);
        mins += da * half_to_float(x[i].dmin) * (float)msum;
    }
    return hsum_ps(acc) - mins;
}

/// Q3_K's sixteen 6-bit scales minus 32, as int8 (see q3k_scales for the bit positions).
AVX2_INLINE __m128i q3k_scales_i8(const uint8_t *s) {
    uint32_t a0, a1, a2;
    memcpy(&a0, s, 4);
    memcpy(&a1, s + 4, 4);
    memcpy(&a2, s + 8, 4);
    const uint32_t lo4 = 0x0F0F0F0Fu, hi2 = 0x03030303u;
    __m128i v = _mm_setr_epi32((int)((a0 & lo4) | (a2 & hi2) << 4),
                               (int)((a1 & lo4) | ((a2 >> 2) & hi2) << 4),
                               (int)(((a0 >> 4) & lo4) | ((a2 >> 4) & hi2) << 4),
                               (int)(((a1 >> 4) & lo4) | ((a2 >> 6) & hi2) << 4));
    return _mm_sub_epi8(v, _mm_set1_epi8(32));
}

static AVX2_FN float dot_q3_K(int64_t n, const void *w, const void *a) {
    const blk_q3_K *x = w;
    const blk_q8_K *y = a;
    __m256 acc = _mm256_setzero_ps();
    const __m256i m3 = _mm256_set1_epi8(3), m1 = _mm256_set1_epi8(1);
    for (int64_t i = 0; i < n / QK_K; i++) {
        prefetch_block(&x[i], (int)sizeof(x[i]));
        __m128i sc8 = q3k_scales_i8(x[i].scales);
        int offset = 4 * weighted_bsums(_mm256_cvtepi8_epi16(sc8), y[i].bsums);
        __m256i hm = _mm256_loadu_si256((const __m256i *)x[i].hmask);
        __m256i sum = _mm256_setzero_si256();
        for (int half = 0; half < 2; half++) {
            __m256i pairs[4];
            group_pairs(_mm_cvtepi8_epi16(half ? _mm_srli_si128(sc8, 8) : sc8), pairs);
            __m256i q = _mm256_loadu_si256((const __m256i *)(x[i].qs + 32 * half));
            const int8_t *ay = y[i].qs + 128 * half;
            for (int j = 0; j < 4; j++) {
                __m256i lo = _mm256_and_si256(_mm256_srli_epi16(q, 2 * j), m3);
                __m256i hb = _mm256_and_si256(_mm256_srli_epi16(hm, 4 * half + j), m1);
                __m256i u = _mm256_or_si256(lo, _mm256_slli_epi16(hb, 2));
                sum = _mm256_add_epi32(sum, scaled_chunk(u, ay + 32 * j, pairs[j]));
            }
        }
        sum = _mm256_sub_epi32(sum, _mm256_setr_epi32(offset, 0, 0, 0, 0, 0, 0, 0));
        acc = _mm256_fmadd_ps(_mm256_set1_ps(y[i].d * half_to_float(x[i].d)), _mm256_cvtepi32_ps(sum), acc);
    }
    return hsum_ps(acc);
}

/// Q4_K/Q5_K: the eight 6-bit scales (bytes 0-7) and mins (bytes 8-15) of the 12 packed bytes
/// (see kquant_scale_min), unpacked four at a time with word masks.
AVX2_INLINE __m128i kquant_scales_mins(const uint8_t *s) {
    uint32_t w0, w1, w2;
    memcpy(&w0, s, 4);
    memcpy(&w1, s + 4, 4);
    memcpy(&w2, s + 8, 4);
    const uint32_t low6 = 0x3F3F3F3Fu, lo4 = 0x0F0F0F0Fu, top2 = 0x30303030u;
    return _mm_setr_epi32((int)(w0 & low6), (int)((w2 & lo4) | ((w0 >> 2) & top2)),
                          (int)(w1 & low6), (int)(((w2 >> 4) & lo4) | ((w1 >> 2) & top2)));
}

/// Mins term: sub-block j covers bsum groups 2j and 2j+1.
AVX2_INLINE int kquant_min_sum(__m128i scmn, const int16_t *bsums) {
    __m128i pairs = _mm_hadd_epi16(_mm_loadu_si128((const __m128i *)bsums),
                                   _mm_loadu_si128((const __m128i *)(bsums + 8)));
    return hsum_epi32_128(_mm_madd_epi16(_mm_cvtepu8_epi16(_mm_srli_si128(scmn, 8)), pairs));
}

/// Int16 broadcast of sub-block scale j over the whole vector, from eight scales in `sc16x2`
/// (the same eight int16 scales in both lanes).
AVX2_INLINE __m256i sub_scale(__m256i sc16x2, int j) { return _mm256_shuffle_epi8(sc16x2, pick16(j, j)); }

static AVX2_FN float dot_q4_K(int64_t n, const void *w, const void *a) {
    const blk_q4_K *x = w;
    const blk_q8_K *y = a;
    __m256 acc = _mm256_setzero_ps();
    float mins = 0;
    const __m256i m4 = _mm256_set1_epi8(0x0F);
    for (int64_t i = 0; i < n / QK_K; i++) {
        prefetch_block(&x[i], (int)sizeof(x[i]));
        __m128i scmn = kquant_scales_mins(x[i].scales);
        int msum = kquant_min_sum(scmn, y[i].bsums);
        __m256i sc = _mm256_broadcastsi128_si256(_mm_cvtepu8_epi16(scmn));
        __m256i sum = _mm256_setzero_si256();
        for (int c = 0; c < 4; c++) {
            __m256i q = _mm256_loadu_si256((const __m256i *)(x[i].qs + 32 * c));
            __m256i lo = _mm256_and_si256(q, m4);
            __m256i hi = _mm256_and_si256(_mm256_srli_epi16(q, 4), m4);
            const int8_t *ay = y[i].qs + 64 * c;
            sum = _mm256_add_epi32(sum, scaled_chunk(lo, ay, sub_scale(sc, 2 * c)));
            sum = _mm256_add_epi32(sum, scaled_chunk(hi, ay + 32, sub_scale(sc, 2 * c + 1)));
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
        prefetch_block(&x[i], (int)sizeof(x[i]));
        __m128i scmn = kquant_scales_mins(x[i].scales);
        int msum = kquant_min_sum(scmn, y[i].bsums);
        __m256i sc = _mm256_broadcastsi128_si256(_mm_cvtepu8_epi16(scmn));
        __m256i hb = _mm256_loadu_si256((const __m256i *)x[i].qh);
        __m256i sum = _mm256_setzero_si256();
        for (int c = 0; c < 4; c++) {
            __m256i q = _mm256_loadu_si256((const __m256i *)(x[i].qs + 32 * c));
            __m256i h0 = _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(hb, 2 * c), m1), 4);
            __m256i h1 = _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(hb, 2 * c + 1), m1), 4);
            __m256i lo = _mm256_or_si256(_mm256_and_si256(q, m4), h0);
            __m256i hi = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(q, 4), m4), h1);
            const int8_t *ay = y[i].qs + 64 * c;
            sum = _mm256_add_epi32(sum, scaled_chunk(lo, ay, sub_scale(sc, 2 * c)));
            sum = _mm256_add_epi32(sum, scaled_chunk(hi, ay + 32, sub_scale(sc, 2 * c + 1)));
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
        prefetch_block(&x[i], (int)sizeof(x[i]));
        __m128i sc8 = _mm_loadu_si128((const __m128i *)x[i].scales);
        int offset = 32 * weighted_bsums(_mm256_cvtepi8_epi16(sc8), y[i].bsums);
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
            __m256i pairs[4];
            group_pairs(_mm_cvtepi8_epi16(half ? _mm_srli_si128(sc8, 8) : sc8), pairs);
            sum = _mm256_add_epi32(sum, scaled_chunk(u0, ay, pairs[0]));
            sum = _mm256_add_epi32(sum, scaled_chunk(u1, ay + 32, pairs[1]));
            sum = _mm256_add_epi32(sum, scaled_chunk(u2, ay + 64, pairs[2]));
            sum = _mm256_add_epi32(sum, scaled_chunk(u3, ay + 96, pairs[3]));
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
