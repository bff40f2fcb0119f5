// Internal: AVX2 building blocks shared by the AVX2 kernel files. Every function carries the
// target attribute, so these files compile without -mavx2 and run only after the CPU check.
#ifndef ONDEVICE_CKERNELS_SIMD_H
#define ONDEVICE_CKERNELS_SIMD_H
#include "blocks.h"  // before the architecture check: the other architectures' stub tables need it
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#define AVX2_FN __attribute__((target("avx2,fma,f16c")))
#define AVX2_INLINE static inline __attribute__((target("avx2,fma,f16c"), always_inline))
// The AVX-512 tier (tier.c): F, BW, VL and VNNI on top of everything AVX2 code may use.
#define AVX512_TARGET "avx512f,avx512bw,avx512vl,avx512vnni,avx2,fma,f16c"
#define AVX512_FN __attribute__((target(AVX512_TARGET)))
#define AVX512_INLINE static inline __attribute__((target(AVX512_TARGET), always_inline))

AVX2_INLINE float hsum_ps(__m256 v) {
    __m128 x = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    x = _mm_add_ps(x, _mm_movehl_ps(x, x));
    x = _mm_add_ss(x, _mm_movehdup_ps(x));
    return _mm_cvtss_f32(x);
}

AVX2_INLINE int hsum_epi32(__m256i v) {
    __m128i x = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    x = _mm_add_epi32(x, _mm_shuffle_epi32(x, _MM_SHUFFLE(1, 0, 3, 2)));
    x = _mm_add_epi32(x, _mm_shuffle_epi32(x, _MM_SHUFFLE(2, 3, 0, 1)));
    return _mm_cvtsi128_si32(x);
}

// Halves are moved into vector registers with a zeroing vmovd pinned by an empty asm: otherwise
// clang sees that only lane 0 is used and emits vpinsrw into whatever register is free, often a
// live accumulator, which chains every block on the previous FMA (loops ran 1.5-3x slower).
AVX2_INLINE __m128i zext_u32(uint32_t v) {
    __m128i x = _mm_cvtsi32_si128((int)v);
    __asm__("" : "+x"(x));
    return x;
}

AVX2_INLINE __m128 half_vec(half_t h) { return _mm_cvtph_ps(zext_u32(h)); }

AVX2_INLINE float half_to_float(half_t h) { return _mm_cvtss_f32(half_vec(h)); }

/// Two adjacent halves (e.g. a block's d and m) as floats in lanes 0 and 1.
AVX2_INLINE __m128 half_pair(const half_t *p) {
    uint32_t v;
    memcpy(&v, p, 4);
    return _mm_cvtph_ps(zext_u32(v));
}

/// Broadcast of half(a) * half(b), with one conversion for both.
AVX2_INLINE __m256 half_product(half_t a, half_t b) {
    __m128 v = _mm_cvtph_ps(zext_u32((uint32_t)a | (uint32_t)b << 16));
    return _mm256_broadcastss_ps(_mm_mul_ss(v, _mm_movehdup_ps(v)));
}

/// Software prefetch distance for one-row streams. The hardware prefetcher alone left cold
/// matvec well below bandwidth on this AMD machine (Q6_K 6.3 -> 10.2 GB/s with it). 8 KiB
/// rather than 4: Qwen's Q8_0 output head, one thread, 35.0 -> 38.7 GB/s (K-quants unchanged).
#define PREFETCH_AHEAD 8192

/// Prefetches `bytes` (a block) starting PREFETCH_AHEAD bytes past `p`, one line at a time.
AVX2_INLINE void prefetch_block(const void *p, int bytes) {
    for (int o = 0; o < bytes; o += 64) _mm_prefetch((const char *)p + PREFETCH_AHEAD + o, _MM_HINT_T0);
}

/// 16 packed bytes -> 32 nibbles: low nibbles in bytes 0-15, high nibbles in bytes 16-31
/// (the element order of the 32-element formats).
AVX2_INLINE __m256i unpack_nibbles16(const uint8_t *p) {
    __m128i b = _mm_loadu_si128((const __m128i *)p);
    __m256i v = _mm256_inserti128_si256(_mm256_castsi128_si256(b), _mm_srli_epi16(b, 4), 1);
    return _mm256_and_si256(v, _mm256_set1_epi8(0x0F));
}

/// Bit j of `bits` -> byte j is 0xFF when set, 0 otherwise.
AVX2_INLINE __m256i expand_bits(uint32_t bits) {
    // Byte j takes source byte j / 8, then tests its own bit j % 8.
    const __m256i pick = _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1,
                                          2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3);
    const __m256i bit = _mm256_set1_epi64x((long long)0x8040201008040201ULL);
    __m256i v = _mm256_shuffle_epi8(_mm256_set1_epi32((int)bits), pick);
    return _mm256_cmpeq_epi8(_mm256_and_si256(v, bit), bit);
}

/// Sum of products of unsigned bytes `u` with signed bytes `s`, as 8 int32 lanes.
/// maddubs cannot saturate here: |u| <= 128 and |s| <= 127 give pairs <= 32512.
AVX2_INLINE __m256i dot_u8_i8(__m256i u, __m256i s) {
    return _mm256_madd_epi16(_mm256_maddubs_epi16(u, s), _mm256_set1_epi16(1));
}

/// Sum of products of two signed byte vectors (move the sign of `a` onto `b`).
AVX2_INLINE __m256i dot_i8_i8(__m256i a, __m256i b) {
    return dot_u8_i8(_mm256_sign_epi8(a, a), _mm256_sign_epi8(b, a));
}

/// sum over the chunk of scale[group] * u * a, as 8 int32 lanes.
AVX2_INLINE __m256i scaled_chunk(__m256i u, const int8_t *a, __m256i scales) {
    __m256i p = _mm256_maddubs_epi16(u, _mm256_loadu_si256((const __m256i *)a));
    return _mm256_madd_epi16(p, scales);
}

// exp for x <= 0 (softmax after the max is subtracted, erf's exp(-z^2)): Cephes expf's range
// reduction (n = round(x / ln 2), r = x - n ln 2, Cody-Waite split) and degree-5 polynomial,
// about 1 ulp; below -87 the result flushes to 0.
AVX2_INLINE __m256 exp_ps(__m256 x) {
    x = _mm256_max_ps(x, _mm256_set1_ps(-87.0f));
    __m256 n = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(1.44269504088896341f)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693359375f), x);
    r = _mm256_fnmadd_ps(n, _mm256_set1_ps(-2.12194440e-4f), r);
    __m256 p = _mm256_set1_ps(1.9875691500e-4f);
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.3981999507e-3f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(8.3334519073e-3f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(4.1665795894e-2f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.6666665459e-1f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(5.0000001201e-1f));
    p = _mm256_fmadd_ps(_mm256_mul_ps(p, r), r, _mm256_add_ps(r, _mm256_set1_ps(1.0f)));
    __m256i e = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
    return _mm256_mul_ps(p, _mm256_castsi256_ps(e));
}
#endif
#endif
