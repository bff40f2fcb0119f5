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

/// Bytes of one tile of od_lora_down_q8's layout: one 32-value block of eight rows, their eight
/// f16 scales then their eight 32-byte code runs.
#define Q8_TILE 272

/// Where the tile of rows r & ~7, block b lies.
static inline int64_t q8_tile(int64_t in, int64_t r, int64_t b) { return ((r / 8) * (in / 32) + b) * Q8_TILE; }

void od_lora_pack_a_q8(const uint8_t *a, int64_t in, int64_t rank, uint8_t *blocked) {
    int64_t nb = in / 32;
    for (int64_t r = 0; r < rank; r++)
        for (int64_t b = 0; b < nb; b++) {
            const uint8_t *src = a + (r * nb + b) * 34;
            uint8_t *t = blocked + q8_tile(in, r, b);
            memcpy(t + (r % 8) * 2, src, 2);
            memcpy(t + 16 + (r % 8) * 32, src + 2, 32);
        }
}

static void lora_down_q8_scalar(const uint8_t *a, int64_t in, int64_t rows, const void *xq, float *mid) {
    const blk_q8_0 *x = xq;
    for (int64_t r = 0; r < rows; r++) {
        float s = 0;
        for (int64_t b = 0; b < in / 32; b++) {
            const uint8_t *t = a + q8_tile(in, r, b);
            half_t d;
            memcpy(&d, t + (r % 8) * 2, 2);
            const int8_t *q = (const int8_t *)(t + 16 + (r % 8) * 32);
            int sum = 0;
            for (int j = 0; j < 32; j++) sum += q[j] * x[b].qs[j];
            s += (float)sum * (h2f(d) * h2f(x[b].d));
        }
        mid[r] = rounded(s);
    }
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

/// Eight rows of a Q8_0 A against a Q8_0 input: per block, each row's exact integer sum (signs
/// moved onto x's magnitudes, as ggml's AVX2 Q8_0 dot), the eight sums gathered into one vector
/// by horizontal adds, then one multiply-add by the rows' scales times x's, so the eight rows'
/// sums accumulate in one register. Prefetches LORA_AHEAD past the tile it reads.
AVX2_FN static void down8_q8_avx2(const uint8_t *p, int64_t nb, const blk_q8_0 *x, float *mid) {
    __m256 s = _mm256_setzero_ps();
    for (int64_t b = 0; b < nb; b++, p += Q8_TILE) {
        for (int o = 0; o < Q8_TILE; o += 64) _mm_prefetch((const char *)p + LORA_AHEAD + o, _MM_HINT_T0);
        __m256i xv = _mm256_loadu_si256((const __m256i *)x[b].qs), ax = _mm256_sign_epi8(xv, xv);
        __m256i d[8];
#pragma clang loop unroll(full)
        for (int k = 0; k < 8; k++)
            d[k] = dot_u8_i8(ax, _mm256_sign_epi8(_mm256_loadu_si256((const __m256i *)(p + 16 + 32 * k)), xv));
        __m256i h0 = _mm256_hadd_epi32(_mm256_hadd_epi32(d[0], d[1]), _mm256_hadd_epi32(d[2], d[3]));
        __m256i h1 = _mm256_hadd_epi32(_mm256_hadd_epi32(d[4], d[5]), _mm256_hadd_epi32(d[6], d[7]));
        __m256i sums = _mm256_add_epi32(_mm256_permute2x128_si256(h0, h1, 0x20), _mm256_permute2x128_si256(h0, h1, 0x31));
        __m256 scales = _mm256_mul_ps(_mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)p)), _mm256_set1_ps(h2f(x[b].d)));
        s = _mm256_fmadd_ps(_mm256_cvtepi32_ps(sums), scales, s);
    }
    _mm256_storeu_ps(mid, s);
}

AVX2_FN static void lora_down_q8_avx2(const uint8_t *a, int64_t in, int64_t rows, const void *xq, float *mid) {
    prefetch_start(a, rows * (in / 32) * 34);
    for (int64_t r = 0; r < rows; r += 8) down8_q8_avx2(a + q8_tile(in, r, 0), in / 32, xq, mid + r);
    od_round_to_f16(mid, (size_t)rows);
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

/// Eight rows of a Q8_0 A against a Q8_0 input on NEON: each row's exact integer sum per block
/// (SDOT where the CPU has it, widening multiplies where not), the eight gathered by pairwise adds
/// into two vectors, then one multiply-add by the rows' scales times x's.
#define DOWN8_Q8_NEON(name, attr, DOT)                                                              \
    attr static void name(const uint8_t *p, int64_t nb, const blk_q8_0 *x, float *mid) {            \
        float32x4_t lo = vdupq_n_f32(0), hi = vdupq_n_f32(0);                                       \
        for (int64_t b = 0; b < nb; b++, p += Q8_TILE) {                                            \
            int8x16_t x0 = vld1q_s8(x[b].qs), x1 = vld1q_s8(x[b].qs + 16);                          \
            int32x4_t d[8];                                                                         \
            for (int k = 0; k < 8; k++) {                                                           \
                const int8_t *w = (const int8_t *)(p + 16 + 32 * k);                                \
                d[k] = DOT(DOT(vdupq_n_s32(0), vld1q_s8(w), x0), vld1q_s8(w + 16), x1);             \
            }                                                                                       \
            int32x4_t s0 = vpaddq_s32(vpaddq_s32(d[0], d[1]), vpaddq_s32(d[2], d[3]));              \
            int32x4_t s1 = vpaddq_s32(vpaddq_s32(d[4], d[5]), vpaddq_s32(d[6], d[7]));              \
            float16x8_t h = vreinterpretq_f16_u16(vld1q_u16((const uint16_t *)p));                  \
            float dx = f16_to_f32(x[b].d);                                                          \
            lo = vfmaq_f32(lo, vcvtq_f32_s32(s0), vmulq_n_f32(vcvt_f32_f16(vget_low_f16(h)), dx));  \
            hi = vfmaq_f32(hi, vcvtq_f32_s32(s1), vmulq_n_f32(vcvt_high_f32_f16(h), dx));           \
        }                                                                                           \
        vst1q_f32(mid, lo);                                                                         \
        vst1q_f32(mid + 4, hi);                                                                     \
    }
#define SDOT(acc, a, b) vdotq_s32(acc, a, b)
DOWN8_Q8_NEON(down8_q8_neon, , dot_s8_plain)
DOWN8_Q8_NEON(down8_q8_sdot, NEON_DOTPROD, SDOT)
#undef SDOT

static void lora_down_q8_neon(const uint8_t *a, int64_t in, int64_t rows, const void *xq, float *mid) {
    int sdot = odk_tier() >= ODK_TIER_DOTPROD;
    for (int64_t r = 0; r < rows; r += 8) {
        if (sdot) down8_q8_sdot(a + q8_tile(in, r, 0), in / 32, xq, mid + r);
        else down8_q8_neon(a + q8_tile(in, r, 0), in / 32, xq, mid + r);
    }
    od_round_to_f16(mid, (size_t)rows);
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

void od_lora_down_q8(const uint8_t *a, int64_t in, int64_t rows, const void *xq, float *mid) {
#if defined(__x86_64__) || defined(_M_X64)
    if (odk_has_avx2()) {
        lora_down_q8_avx2(a, in, rows, xq, mid);
        return;
    }
#elif defined(__aarch64__)
    if (odk_tier() >= ODK_TIER_NEON) {
        lora_down_q8_neon(a, in, rows, xq, mid);
        return;
    }
#endif
    lora_down_q8_scalar(a, in, rows, xq, mid);
}

void od_lora_down_q8_scalar(const uint8_t *a, int64_t in, int64_t rows, const void *xq, float *mid) {
    lora_down_q8_scalar(a, in, rows, xq, mid);
}

void od_lora_down_q8_tokens(const uint8_t *a, int64_t in, int64_t rows, const void *xq, int64_t xq_bytes, int64_t tokens, float *mid,
                            int64_t ldmid) {
    for (int64_t t = 0; t < tokens; t++) od_lora_down_q8(a, in, rows, (const uint8_t *)xq + t * xq_bytes, mid + t * ldmid);
}
