// The batched matrix-vector kernels (dot_batch.h) on the AVX2 tier: the u8 x s8 group dot is
// maddubs + madd (no saturation: |u| <= 128, |a| <= 127), and Q8_0 uses the sign trick.
#include "simd.h"
#if defined(__x86_64__) || defined(__i386__)
#define KFN AVX2_FN
#define KINL AVX2_INLINE
#define DPB(acc, u, a) _mm256_add_epi32((acc), _mm256_madd_epi16(_mm256_maddubs_epi16((u), (a)), _mm256_set1_epi16(1)))
#define BATCH_Q8_0_OFFSET 0
#define NAME(x) odk_avx2_##x
#include "dot_batch.h"
#endif
