// A LoRA adapter's low-rank products (see od_lora.h). A is [in, rank] in ggml order (rank rows
// of `in`), B is [rank, out] (out rows of rank elements). Through
// the matrix-vector kernels each A row and each 8-element B row was a call of its own over a few
// cold cache lines: a rank-8 adapter (5% of SmolLM2's bytes) cost 8-13% of one-thread decode
// with its kernels streaming about 13 GB/s. Here the rows of every A that reads one input are
// summed eight at a time over a single pass of x, B's outputs come eight at a time from one
// contiguous stream, and both prefetch what comes next in the caller's packed buffer.
#include "od_lora.h"
#include "blocks.h"
#include "od_attention.h"
#include "od_kernels.h"

/// Bytes a kernel reaches ahead in the packed stream it reads.
#define LORA_AHEAD 8192

static float rounded(float v) { return odk_fp16_to_fp32(odk_fp32_to_fp16(v)); }

/// Element (r, i) of A in the blocked layout od_lora_down_f16 reads.
static inline int64_t blocked_at(int64_t in, int64_t r, int64_t i) { return ((r / 8) * (in / 16) + i / 16) * 128 + (r % 8) * 16 + i % 16; }

void od_lora_pack_a(const uint16_t *a, int64_t in, int64_t rank, uint16_t *blocked) {
    for (int64_t r = 0; r < rank; r++)
        for (int64_t i = 0; i < in; i++) blocked[blocked_at(in, r, i)] = a[r * in + i];
}

void od_lora_pack_b(const uint16_t *b, int64_t rank, int64_t n, uint16_t *packed) {
    int64_t full = n & ~(int64_t)7;
    for (int64_t j = 0; j < full; j++)
        for (int64_t k = 0; k < rank; k++) packed[((j / 8) * rank + k) * 8 + j % 8] = b[j * rank + k];
    for (int64_t i = full * rank; i < n * rank; i++) packed[i] = b[i];
}

static void lora_down_scalar(const uint16_t *a, int64_t in, int64_t rows, const float *x, float *mid) {
    for (int64_t r = 0; r < rows; r++) {
        float s = 0;
        for (int64_t i = 0; i < in; i++) s += odk_fp16_to_fp32(a[blocked_at(in, r, i)]) * rounded(x[i]);
        mid[r] = rounded(s);
    }
}

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

/// Asks for the first `bytes` (at most LORA_AHEAD) at p at once: a cold group's first lines.
AVX2_FN static void prefetch_start(const void *p, int64_t bytes) {
    if (bytes > LORA_AHEAD) bytes = LORA_AHEAD;
    for (int64_t o = 0; o < bytes; o += 64) _mm_prefetch((const char *)p + o, _MM_HINT_T0);
}

/// Eight rows of blocked A against x: eight accumulators over one pass of x (each element
/// rounded to f16 once), reading 256 contiguous bytes per 16 elements and prefetching
/// LORA_AHEAD past them, into the next rows or whatever follows A (the group's B's).
AVX512_FN static void down8_avx512(const uint16_t *p, int64_t in, const float *x, float *mid) {
    __m512 s[8];
    for (int k = 0; k < 8; k++) s[k] = _mm512_setzero_ps();
    for (int64_t i = 0; i < in; i += 16, p += 128) {
        for (int o = 0; o < 256; o += 64) _mm_prefetch((const char *)p + LORA_AHEAD + o, _MM_HINT_T0);
        __m512 xv = _mm512_cvtph_ps(_mm512_cvtps_ph(_mm512_loadu_ps(x + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
#pragma clang loop unroll(full)
        for (int k = 0; k < 8; k++) s[k] = _mm512_fmadd_ps(_mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(p + 16 * k))), xv, s[k]);
    }
    for (int k = 0; k < 8; k++) mid[k] = _mm512_reduce_add_ps(s[k]);
}

AVX2_FN static void down8_avx2(const uint16_t *p, int64_t in, const float *x, float *mid) {
    __m256 s[8];
    for (int k = 0; k < 8; k++) s[k] = _mm256_setzero_ps();
    for (int64_t i = 0; i < in; i += 16, p += 128) {
        for (int o = 0; o < 256; o += 64) _mm_prefetch((const char *)p + LORA_AHEAD + o, _MM_HINT_T0);
        for (int h = 0; h < 16; h += 8) {
            __m256 xv = _mm256_cvtph_ps(_mm256_cvtps_ph(_mm256_loadu_ps(x + i + h), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
#pragma clang loop unroll(full)
            for (int k = 0; k < 8; k++)
                s[k] = _mm256_fmadd_ps(_mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(p + 16 * k + h))), xv, s[k]);
        }
    }
    for (int k = 0; k < 8; k++) mid[k] = hsum_ps(s[k]);
}

/// down8_avx512 for two tokens: each A vector read once for both, each token's sums in the same
/// order as down8_avx512's, so the same floats.
AVX512_FN static void down8x2_avx512(const uint16_t *p, int64_t in, const float *x0, const float *x1, float *m0, float *m1) {
    __m512 s[8], u[8];
    for (int k = 0; k < 8; k++) s[k] = u[k] = _mm512_setzero_ps();
    for (int64_t i = 0; i < in; i += 16, p += 128) {
        __m512 v0 = _mm512_cvtph_ps(_mm512_cvtps_ph(_mm512_loadu_ps(x0 + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
        __m512 v1 = _mm512_cvtph_ps(_mm512_cvtps_ph(_mm512_loadu_ps(x1 + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
#pragma clang loop unroll(full)
        for (int k = 0; k < 8; k++) {
            __m512 a = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(p + 16 * k)));
            s[k] = _mm512_fmadd_ps(a, v0, s[k]);
            u[k] = _mm512_fmadd_ps(a, v1, u[k]);
        }
    }
    for (int k = 0; k < 8; k++) {
        m0[k] = _mm512_reduce_add_ps(s[k]);
        m1[k] = _mm512_reduce_add_ps(u[k]);
    }
}

AVX2_FN static void lora_down_x86(const uint16_t *a, int64_t in, int64_t rows, const float *x, float *mid, int wide) {
    prefetch_start(a, rows * in * 2);
    for (int64_t r = 0; r < rows; r += 8) {
        if (wide) down8_avx512(a + r * in, in, x, mid + r);
        else down8_avx2(a + r * in, in, x, mid + r);
    }
    od_round_to_f16(mid, (size_t)rows);
}

AVX2_FN static void lora_up_avx2(const uint16_t *blocked, const uint16_t *rows, const float *mid, int64_t rank, int64_t n,
                                 float scale, float *out) {
    int64_t full = n & ~(int64_t)7;
    const uint16_t *g = blocked;
    prefetch_start(g, full * rank * 2);
    for (int64_t j = 0; j < full; j += 8, g += rank * 8) {
        for (int64_t o = 0; o < rank * 16; o += 64) _mm_prefetch((const char *)g + LORA_AHEAD + o, _MM_HINT_T0);
        __m256 s = _mm256_setzero_ps();
        for (int64_t k = 0; k < rank; k++)
            s = _mm256_fmadd_ps(_mm256_set1_ps(mid[k]), _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(g + 8 * k))), s);
        _mm256_storeu_ps(out + j, _mm256_fmadd_ps(_mm256_set1_ps(scale), s, _mm256_loadu_ps(out + j)));
    }
    for (int64_t j = full; j < n; j++) out[j] += scale * row_sum(rows + j * rank, mid, rank);
}

/// lora_up_avx2 for four tokens: each B vector converted once for all of them, each token's
/// sums in lora_up_avx2's order, so the same floats.
AVX2_FN static void lora_up4_avx2(const uint16_t *blocked, const uint16_t *rows, const float *mid, int64_t ldmid, int64_t rank,
                                  int64_t n, float scale, float *out, int64_t ldout) {
    int64_t full = n & ~(int64_t)7;
    const uint16_t *g = blocked;
    const float *m0 = mid, *m1 = mid + ldmid, *m2 = mid + 2 * ldmid, *m3 = mid + 3 * ldmid;
    float *o0 = out, *o1 = out + ldout, *o2 = out + 2 * ldout, *o3 = out + 3 * ldout;
    __m256 sc = _mm256_set1_ps(scale);
    for (int64_t j = 0; j < full; j += 8, g += rank * 8) {
        __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps(), s2 = _mm256_setzero_ps(), s3 = _mm256_setzero_ps();
        for (int64_t k = 0; k < rank; k++) {
            __m256 b = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(g + 8 * k)));
            s0 = _mm256_fmadd_ps(_mm256_set1_ps(m0[k]), b, s0);
            s1 = _mm256_fmadd_ps(_mm256_set1_ps(m1[k]), b, s1);
            s2 = _mm256_fmadd_ps(_mm256_set1_ps(m2[k]), b, s2);
            s3 = _mm256_fmadd_ps(_mm256_set1_ps(m3[k]), b, s3);
        }
        _mm256_storeu_ps(o0 + j, _mm256_fmadd_ps(sc, s0, _mm256_loadu_ps(o0 + j)));
        _mm256_storeu_ps(o1 + j, _mm256_fmadd_ps(sc, s1, _mm256_loadu_ps(o1 + j)));
        _mm256_storeu_ps(o2 + j, _mm256_fmadd_ps(sc, s2, _mm256_loadu_ps(o2 + j)));
        _mm256_storeu_ps(o3 + j, _mm256_fmadd_ps(sc, s3, _mm256_loadu_ps(o3 + j)));
    }
    for (int64_t t = 0; t < 4; t++)
        for (int64_t j = full; j < n; j++) out[t * ldout + j] += scale * row_sum(rows + j * rank, mid + t * ldmid, rank);
}
#endif

#if defined(__aarch64__)
#include "neon.h"

/// Eight rows of blocked A against x on NEON: one accumulator per row over one pass of x (each
/// element rounded to f16 once), 256 contiguous bytes of A per 16 elements.
static void down8_neon(const uint16_t *p, int64_t in, const float *x, float *mid) {
    float32x4_t s[8];
    for (int k = 0; k < 8; k++) s[k] = vdupq_n_f32(0);
    for (int64_t i = 0; i < in; i += 16, p += 128) {
        float32x4_t xv[4];
        for (int q = 0; q < 4; q++) xv[q] = vcvt_f32_f16(vcvt_f16_f32(vld1q_f32(x + i + 4 * q)));
        for (int k = 0; k < 8; k++) {
            float16x8_t lo = vreinterpretq_f16_u16(vld1q_u16(p + 16 * k)), hi = vreinterpretq_f16_u16(vld1q_u16(p + 16 * k + 8));
            s[k] = vfmaq_f32(s[k], vcvt_f32_f16(vget_low_f16(lo)), xv[0]);
            s[k] = vfmaq_f32(s[k], vcvt_high_f32_f16(lo), xv[1]);
            s[k] = vfmaq_f32(s[k], vcvt_f32_f16(vget_low_f16(hi)), xv[2]);
            s[k] = vfmaq_f32(s[k], vcvt_high_f32_f16(hi), xv[3]);
        }
    }
    for (int k = 0; k < 8; k++) mid[k] = vaddvq_f32(s[k]);
}

static void lora_down_neon(const uint16_t *a, int64_t in, int64_t rows, const float *x, float *mid) {
    for (int64_t r = 0; r < rows; r += 8) down8_neon(a + r * in, in, x, mid + r);
    od_round_to_f16(mid, (size_t)rows);
}

/// B's outputs eight at a time from the blocked stream: two accumulators, k in order.
static void lora_up_neon(const uint16_t *blocked, const uint16_t *rows, const float *mid, int64_t rank, int64_t n, float scale,
                         float *out) {
    int64_t full = n & ~(int64_t)7;
    const uint16_t *g = blocked;
    for (int64_t j = 0; j < full; j += 8, g += rank * 8) {
        float32x4_t lo = vdupq_n_f32(0), hi = vdupq_n_f32(0);
        for (int64_t k = 0; k < rank; k++) {
            float16x8_t b = vreinterpretq_f16_u16(vld1q_u16(g + 8 * k));
            lo = vfmaq_n_f32(lo, vcvt_f32_f16(vget_low_f16(b)), mid[k]);
            hi = vfmaq_n_f32(hi, vcvt_high_f32_f16(b), mid[k]);
        }
        vst1q_f32(out + j, vfmaq_n_f32(vld1q_f32(out + j), lo, scale));
        vst1q_f32(out + j + 4, vfmaq_n_f32(vld1q_f32(out + j + 4), hi, scale));
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
#elif defined(__aarch64__)
    if (odk_tier() >= ODK_TIER_NEON) {
        lora_up_neon(blocked, rows, mid, rank, n, scale, out);
        return;
    }
#endif
    lora_up_scalar(blocked, rows, mid, rank, n, scale, out);
}

void od_lora_up_f16_scalar(const uint16_t *blocked, const uint16_t *rows, const float *mid, int64_t rank, int64_t n,
                           float scale, float *out) {
    lora_up_scalar(blocked, rows, mid, rank, n, scale, out);
}

void od_lora_down_f16(const uint16_t *a, int64_t in, int64_t rows, const float *x, float *mid) {
#if defined(__x86_64__) || defined(_M_X64)
    if (odk_has_avx2()) {
        lora_down_x86(a, in, rows, x, mid, odk_has_avx512());
        return;
    }
#elif defined(__aarch64__)
    if (odk_tier() >= ODK_TIER_NEON) {
        lora_down_neon(a, in, rows, x, mid);
        return;
    }
#endif
    lora_down_scalar(a, in, rows, x, mid);
}

void od_lora_down_f16_scalar(const uint16_t *a, int64_t in, int64_t rows, const float *x, float *mid) {
    lora_down_scalar(a, in, rows, x, mid);
}

void od_lora_down_f16_tokens(const uint16_t *a, int64_t in, int64_t rows, const float *x, int64_t ldx, int64_t tokens, float *mid,
                             int64_t ldmid) {
    int64_t t = 0;
#if defined(__x86_64__) || defined(_M_X64)
    if (odk_has_avx512()) {
        for (; t + 2 <= tokens; t += 2) {
            const float *x0 = x + t * ldx, *x1 = x0 + ldx;
            float *m0 = mid + t * ldmid, *m1 = m0 + ldmid;
            for (int64_t r = 0; r < rows; r += 8) down8x2_avx512(a + r * in, in, x0, x1, m0 + r, m1 + r);
            od_round_to_f16(m0, (size_t)rows);
            od_round_to_f16(m1, (size_t)rows);
        }
    }
#endif
    for (; t < tokens; t++) od_lora_down_f16(a, in, rows, x + t * ldx, mid + t * ldmid);
}

void od_lora_up_f16_tokens(const uint16_t *blocked, const uint16_t *rows, const float *mid, int64_t ldmid, int64_t rank, int64_t n,
                           int64_t tokens, float scale, float *out, int64_t ldout) {
    int64_t t = 0;
#if defined(__x86_64__) || defined(_M_X64)
    if (odk_has_avx2())
        for (; t + 4 <= tokens; t += 4) lora_up4_avx2(blocked, rows, mid + t * ldmid, ldmid, rank, n, scale, out + t * ldout, ldout);
#endif
    for (; t < tokens; t++) od_lora_up_f16(blocked, rows, mid + t * ldmid, rank, n, scale, out + t * ldout);
}
