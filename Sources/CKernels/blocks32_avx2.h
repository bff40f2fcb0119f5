// Internal: per-block integer products (8 int32 lanes) of the 32-element formats, shared by
// the one-row and four-row AVX2 kernels.
#ifndef ONDEVICE_CKERNELS_BLOCKS32_AVX2_H
#define ONDEVICE_CKERNELS_BLOCKS32_AVX2_H
#include "simd.h"
#if defined(__x86_64__) || defined(__i386__)

AVX2_INLINE __m256i prod_q4_0(const blk_q4_0 *x, const blk_q8_0 *y) {
    __m256i q = _mm256_sub_epi8(unpack_nibbles16(x->qs), _mm256_set1_epi8(8));
    return dot_i8_i8(q, _mm256_loadu_si256((const __m256i *)y->qs));
}

AVX2_INLINE __m256i prod_q4_1(const blk_q4_1 *x, const blk_q8_1 *y) {
    return dot_u8_i8(unpack_nibbles16(x->qs), _mm256_loadu_si256((const __m256i *)y->qs));
}

AVX2_INLINE __m256i q5_codes(const uint8_t *qh, const uint8_t *qs) {
    uint32_t bits;
    memcpy(&bits, qh, 4);
    __m256i hi = _mm256_and_si256(expand_bits(bits), _mm256_set1_epi8(16));
    return _mm256_or_si256(unpack_nibbles16(qs), hi);
}

AVX2_INLINE __m256i prod_q5_0(const blk_q5_0 *x, const blk_q8_0 *y) {
    __m256i q = _mm256_sub_epi8(q5_codes(x->qh, x->qs), _mm256_set1_epi8(16));
    return dot_i8_i8(q, _mm256_loadu_si256((const __m256i *)y->qs));
}

AVX2_INLINE __m256i prod_q5_1(const blk_q5_1 *x, const blk_q8_1 *y) {
    return dot_u8_i8(q5_codes(x->qh, x->qs), _mm256_loadu_si256((const __m256i *)y->qs));
}

AVX2_INLINE __m256i prod_q8_0(const blk_q8_0 *x, const blk_q8_0 *y) {
    return dot_i8_i8(_mm256_loadu_si256((const __m256i *)x->qs), _mm256_loadu_si256((const __m256i *)y->qs));
}

#endif
#endif
