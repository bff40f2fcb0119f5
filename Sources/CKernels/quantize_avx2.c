// AVX2 activation quantizers. Same operations as the scalar ones in ckernels.c (max of |x|,
// 127/amax, x * id rounded to nearest even, amax/127), so results are bit-identical.
#include <math.h>
#include "simd.h"
#if defined(__x86_64__) || defined(__i386__)

AVX2_INLINE __m256 abs_ps(__m256 v) { return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), v); }

AVX2_INLINE float hmax_ps(__m256 v) {
    __m128 x = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    x = _mm_max_ps(x, _mm_movehl_ps(x, x));
    x = _mm_max_ss(x, _mm_movehdup_ps(x));
    return _mm_cvtss_f32(x);
}

/// 32 floats times `scale`, rounded to nearest even, packed to int8 in order; returns the four
/// int32 vectors' sum of codes through `sum` when non-NULL.
AVX2_INLINE __m256i round_pack32(const float *x, __m256 scale, int *sum) {
    __m256i i0 = _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_loadu_ps(x), scale));
    __m256i i1 = _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_loadu_ps(x + 8), scale));
    __m256i i2 = _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_loadu_ps(x + 16), scale));
    __m256i i3 = _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_loadu_ps(x + 24), scale));
    if (sum) *sum = hsum_epi32(_mm256_add_epi32(_mm256_add_epi32(i0, i1), _mm256_add_epi32(i2, i3)));
    // packs work per 128-bit lane; the final permute restores element order.
    __m256i p = _mm256_packs_epi16(_mm256_packs_epi32(i0, i1), _mm256_packs_epi32(i2, i3));
    return _mm256_permutevar8x32_epi32(p, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
}

AVX2_INLINE float amax32(const float *x) {
    __m256 m = _mm256_max_ps(_mm256_max_ps(abs_ps(_mm256_loadu_ps(x)), abs_ps(_mm256_loadu_ps(x + 8))),
                             _mm256_max_ps(abs_ps(_mm256_loadu_ps(x + 16)), abs_ps(_mm256_loadu_ps(x + 24))));
    return hmax_ps(m);
}

AVX2_FN void odk_quantize_q8_0_avx2(const float *x, void *dst, int64_t k) {
    blk_q8_0 *y = dst;
    for (int64_t i = 0; i < k / QK; i++, x += QK) {
        float amax = amax32(x);
        float id = amax != 0 ? 127.0f / amax : 0.0f;
        y[i].d = odk_fp32_to_fp16(amax / 127.0f);
        _mm256_storeu_si256((__m256i *)y[i].qs, round_pack32(x, _mm256_set1_ps(id), NULL));
    }
}

AVX2_FN void odk_quantize_q8_1_avx2(const float *x, void *dst, int64_t k) {
    blk_q8_1 *y = dst;
    for (int64_t i = 0; i < k / QK; i++, x += QK) {
        float amax = amax32(x);
        float d = amax / 127.0f;
        float id = amax != 0 ? 127.0f / amax : 0.0f;
        int sum;
        _mm256_storeu_si256((__m256i *)y[i].qs, round_pack32(x, _mm256_set1_ps(id), &sum));
        y[i].d = odk_fp32_to_fp16(d);
        y[i].s = odk_fp32_to_fp16(d * (float)sum);
    }
}

AVX2_FN void odk_quantize_q8_K_avx2(const float *x, void *dst, int64_t k) {
    blk_q8_K *y = dst;
    for (int64_t i = 0; i < k / QK_K; i++, x += QK_K) {
        __m256 m = _mm256_setzero_ps();
        for (int j = 0; j < QK_K; j += 8) m = _mm256_max_ps(m, abs_ps(_mm256_loadu_ps(x + j)));
        float amax = hmax_ps(m);
        if (amax == 0) {
            memset(&y[i], 0, sizeof(blk_q8_K));
            continue;
        }
        // The scalar quantizer keeps the first element of largest magnitude, sign included.
        float max = 0;
        for (int j = 0; j < QK_K; j++) {
            if (fabsf(x[j]) == amax) { max = x[j]; break; }
        }
        float iscale = -127.0f / max;
        for (int j = 0; j < QK_K; j += 32)
            _mm256_storeu_si256((__m256i *)(y[i].qs + j), round_pack32(x + j, _mm256_set1_ps(iscale), NULL));
        for (int g = 0; g < QK_K / 16; g++) {
            int sum = 0;
            for (int j = 0; j < 16; j++) sum += y[i].qs[g * 16 + j];
            y[i].bsums[g] = (int16_t)sum;
        }
        y[i].d = 1.0f / iscale;
    }
}
#endif
