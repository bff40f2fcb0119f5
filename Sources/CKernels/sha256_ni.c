// SHA-256 compression (FIPS 180-4 §6.2.2) on the x86 SHA extensions.
//
// Register layout the instructions want: the state as two vectors, ABEF and CDGH (lane 3 first:
// A,B,E,F high to low). `sha256rnds2(cdgh, abef, wk)` runs two rounds with the two low words of
// wk (= W[t] + K[t]) and returns the new ABEF; the old ABEF is then the new CDGH, so the pair of
// calls per four rounds alternates the two registers. The message schedule works four words at
// a time: for words t..t+3 (t >= 16),
//   W = sha256msg2(sha256msg1(W[t-16..], W[t-12..]) + W[t-7..t-4], W[t-4..t-1])
// where msg1 adds sigma0 of the next word, W[t-7..t-4] is an alignr of the two previous groups,
// and msg2 adds sigma1 (resolving the in-group dependency of W[t+2], W[t+3] on W[t], W[t+1]).
// Compiled for SHA/SSE4.1 by a function attribute and picked at run time, so no build flags.
#include <stdatomic.h>
#include "include/od_sha256.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

// First 32 bits of the fractional parts of the cube roots of the first 64 primes (§4.2.2),
// four per group in the order the round instructions consume them.
static const uint32_t K256[64] __attribute__((aligned(16))) = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

#define SHA_TARGET __attribute__((target("sha,sse4.1,ssse3")))

// Four rounds with message group `w` (already W[t..t+3]) and constants group `g`.
#define QUAD(w, g)                                                                   \
    do {                                                                             \
        __m128i wk = _mm_add_epi32((w), _mm_load_si128((const __m128i *)&K256[4 * (g)])); \
        cdgh = _mm_sha256rnds2_epu32(cdgh, abef, wk);                                \
        wk = _mm_shuffle_epi32(wk, 0x0E);                                            \
        abef = _mm_sha256rnds2_epu32(abef, cdgh, wk);                                \
    } while (0)

// Next schedule group into `a` (which holds W[t-16..t-13]); b, c, d hold the three groups after.
#define NEXT(a, b, c, d) \
    (a) = _mm_sha256msg2_epu32(_mm_add_epi32(_mm_sha256msg1_epu32((a), (b)), _mm_alignr_epi8((d), (c), 4)), (d))

SHA_TARGET static void compress_ni(uint32_t state[8], const uint8_t *data, size_t blocks) {
    // Big-endian words: reverse the bytes inside each 32-bit lane.
    const __m128i byteswap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
    __m128i dcba = _mm_loadu_si128((const __m128i *)&state[0]);
    __m128i hgfe = _mm_loadu_si128((const __m128i *)&state[4]);
    __m128i cdab = _mm_shuffle_epi32(dcba, 0xB1);
    __m128i efgh = _mm_shuffle_epi32(hgfe, 0x1B);
    __m128i abef = _mm_alignr_epi8(cdab, efgh, 8);
    __m128i cdgh = _mm_blend_epi16(efgh, cdab, 0xF0);

    for (size_t n = 0; n < blocks; n++, data += 64) {
        const __m128i abef_in = abef, cdgh_in = cdgh;
        __m128i m0 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(data + 0)), byteswap);
        __m128i m1 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(data + 16)), byteswap);
        __m128i m2 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(data + 32)), byteswap);
        __m128i m3 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(data + 48)), byteswap);
        QUAD(m0, 0); QUAD(m1, 1); QUAD(m2, 2); QUAD(m3, 3);
        NEXT(m0, m1, m2, m3); QUAD(m0, 4);
        NEXT(m1, m2, m3, m0); QUAD(m1, 5);
        NEXT(m2, m3, m0, m1); QUAD(m2, 6);
        NEXT(m3, m0, m1, m2); QUAD(m3, 7);
        NEXT(m0, m1, m2, m3); QUAD(m0, 8);
        NEXT(m1, m2, m3, m0); QUAD(m1, 9);
        NEXT(m2, m3, m0, m1); QUAD(m2, 10);
        NEXT(m3, m0, m1, m2); QUAD(m3, 11);
        NEXT(m0, m1, m2, m3); QUAD(m0, 12);
        NEXT(m1, m2, m3, m0); QUAD(m1, 13);
        NEXT(m2, m3, m0, m1); QUAD(m2, 14);
        NEXT(m3, m0, m1, m2); QUAD(m3, 15);
        abef = _mm_add_epi32(abef, abef_in);
        cdgh = _mm_add_epi32(cdgh, cdgh_in);
    }

    __m128i feba = _mm_shuffle_epi32(abef, 0x1B);
    __m128i dchg = _mm_shuffle_epi32(cdgh, 0xB1);
    _mm_storeu_si128((__m128i *)&state[0], _mm_blend_epi16(feba, dchg, 0xF0));
    _mm_storeu_si128((__m128i *)&state[4], _mm_alignr_epi8(dchg, feba, 8));
}
#endif

// CPU feature check, done once. Relaxed atomics: every thread computes the same answer.
static _Atomic int sha_state = -1;

int od_sha256_hw_available(void) {
    int s = atomic_load_explicit(&sha_state, memory_order_relaxed);
    if (s < 0) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_cpu_init();
        s = __builtin_cpu_supports("sha") && __builtin_cpu_supports("sse4.1") && __builtin_cpu_supports("ssse3");
#else
        s = 0;
#endif
        atomic_store_explicit(&sha_state, s, memory_order_relaxed);
    }
    return s;
}

void od_sha256_compress_hw(uint32_t state[8], const uint8_t *data, size_t blocks) {
#if defined(__x86_64__) || defined(__i386__)
    if (od_sha256_hw_available()) compress_ni(state, data, blocks);
#else
    (void)state; (void)data; (void)blocks;
#endif
}
