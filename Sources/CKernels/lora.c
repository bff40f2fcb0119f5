// A LoRA adapter's B·(A·x) for one decoded token (see od_lora.h). B is [rank, out] in ggml
// order: out rows of rank (8 or 16) elements. Through the matrix-vector kernels that is a call
// per 8-element row, which cost a rank-8 adapter 11-17% of SmolLM2's one-thread decode once that
// reached 250 tokens/s; here eight outputs take one FMA per rank from one contiguous f16 stream.
#include "od_lora.h"
#include "blocks.h"
#include "od_attention.h"
#include "od_kernels.h"

static float row_sum(const uint16_t *row, const float *mid, int64_t rank) {
    float s = 0;
    for (int64_t k = 0; k < rank; k++) s += mid[k] * odk_fp16_to_fp32(row[k]);
    return s;
}

static void lora_up_scalar(const uint16_t *blocked, const uint16_t *rows, const float *mid, int64_t rank, int64_t n,
                           float scale, float *out) {
    int64_t full = n & ~(int64_t)7;
    for (int64_t j = 0; j < full; j++) {
        const uint16_t *g = blocked + (j / 8) * rank * 8 + j % 8;
        float s = 0;
        for (int64_t k = 0; k < rank; k++) s += mid[k] * odk_fp16_to_fp32(g[k * 8]);
        out[j] += scale * s;
    }
    for (int64_t j = full; j < n; j++) out[j] += scale * row_sum(rows + j * rank, mid, rank);
}

#if defined(__x86_64__) || defined(_M_X64)
#include "simd.h"

AVX2_FN static void lora_up_avx2(const uint16_t *blocked, const uint16_t *rows, const float *mid, int64_t rank, int64_t n,
                                 float scale, float *out) {
    int64_t full = n & ~(int64_t)7;
    const uint16_t *g = blocked;
    for (int64_t j = 0; j < full; j += 8, g += rank * 8) {
        _mm_prefetch((const char *)(g + 8 * rank) + 2048, _MM_HINT_T0);
        __m256 s = _mm256_setzero_ps();
        for (int64_t k = 0; k < rank; k++)
            s = _mm256_fmadd_ps(_mm256_set1_ps(mid[k]), _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(g + 8 * k))), s);
        _mm256_storeu_ps(out + j, _mm256_fmadd_ps(_mm256_set1_ps(scale), s, _mm256_loadu_ps(out + j)));
    }
    for (int64_t j = full; j < n; j++) out[j] += scale * row_sum(rows + j * rank, mid, rank);
}
#endif

void od_lora_up_f16(const uint16_t *blocked, const uint16_t *rows, const float *mid, int64_t rank, int64_t n, float scale,
                    float *out) {
#if defined(__x86_64__) || defined(_M_X64)
    if (odk_has_avx2()) {
        lora_up_avx2(blocked, rows, mid, rank, n, scale, out);
        return;
    }
#endif
    lora_up_scalar(blocked, rows, mid, rank, n, scale, out);
}

void od_lora_up_f16_scalar(const uint16_t *blocked, const uint16_t *rows, const float *mid, int64_t rank, int64_t n,
                           float scale, float *out) {
    lora_up_scalar(blocked, rows, mid, rank, n, scale, out);
}

void od_lora_apply_f16(const uint16_t *a, int64_t in, int64_t rank, const uint16_t *blocked, const uint16_t *rows, int64_t n,
                       const float *x, float *mid, float scale, float *out) {
    for (int64_t k = 0; k < rank; k++) mid[k] = odk_vec_dot(T_F16, in, a + k * in, x);
    od_round_to_f16(mid, (size_t)rank);
    od_lora_up_f16(blocked, rows, mid, rank, n, scale, out);
}
