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
#else
#include "batch.h"
int odk_avx2_batch_rows(int32_t t, int64_t cols, const void *w, size_t rb, int64_t row_begin,
                        int64_t row_end, const void *act, size_t ab, int64_t n_tokens, float *out,
                        int64_t stride) {
    (void)t, (void)cols, (void)w, (void)rb, (void)row_begin, (void)row_end, (void)act, (void)ab;
    (void)n_tokens, (void)out, (void)stride;
    return 0;
}
#endif
