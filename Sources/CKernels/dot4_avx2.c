// The four-row kernels (dot4.h) on the AVX2 tier: the u8 x s8 dot is maddubs then madd.
#include "simd.h"
#if defined(__x86_64__) || defined(__i386__)
#define KFN AVX2_FN
#define KINL AVX2_INLINE
#define DOT_ADD(acc, u, s) _mm256_add_epi32((acc), dot_u8_i8((u), (s)))
#define NIBBLES(qs) unpack_nibbles16(qs)
#define Q5_CODES(qh, qs) q5_codes((qh), (qs))
#define NAME(x) odk_avx2_##x
#include "dot4.h"
#else
odk_dot4_fn odk_avx2_kernel4(int32_t t) { (void)t; return NULL; }
odk_dot4x2_fn odk_avx2_kernel4x2(int32_t t) { (void)t; return NULL; }
#endif
