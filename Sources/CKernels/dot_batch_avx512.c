// The batched matrix-vector kernels (dot_batch.h) on the AVX-512 tier: the u8 x s8 group dot is
// one VNNI vpdpbusd on 256-bit vectors (AVX512VL), and Q8_0 codes are shifted to u8 by +128.
#include "simd.h"
#if defined(__x86_64__) || defined(__i386__)
#define KFN AVX512_FN
#define KINL AVX512_INLINE
#define DPB(acc, u, a) _mm256_dpbusd_epi32((acc), (u), (a))
#define BATCH_Q8_0_OFFSET 1
#define NAME(x) odk_avx512_##x
#include "dot_batch.h"
#endif
