// Two-by-two NEON kernels with SMMLA (vmmlaq_s32, FEAT_I8MM) for the 32-element block formats
// and Q4_K/Q5_K/Q6_K: two weight rows against two activation rows, for prompt processing
// (odk_matmul_rows with two or more tokens). SMMLA multiplies a 2x8 int8 matrix by the transpose of another, so each
// 8-byte chunk of a block is paired across the two rows (zip of 64-bit halves) and one
// instruction yields all four row-token sums; four per block, exact in int32. As in ggml's
// i8mm path (`ggml-cpu/arch/arm/quants.c`, nrc == 2), the weight row pair shares every load
// of the activation pair.
#include "neon.h"
#if defined(__aarch64__)

/// The 32 signed codes of one block as elements 0-15 and 16-31.
typedef struct { int8x16_t lo, hi; } codes32;

NEON_INLINE codes32 codes_q4(const uint8_t *qs, int offset) {
    uint8x16_t b = vld1q_u8(qs);
    codes32 c = {vsubq_s8(vreinterpretq_s8_u8(vandq_u8(b, vdupq_n_u8(0x0F))), vdupq_n_s8((int8_t)offset)),
                 vsubq_s8(vreinterpretq_s8_u8(vshrq_n_u8(b, 4)), vdupq_n_s8((int8_t)offset))};
    return c;
}

NEON_INLINE codes32 codes_q5(const uint8_t *qh, const uint8_t *qs, int offset) {
    uint32_t bits;
    memcpy(&bits, qh, 4);
    uint8x16_t b = vld1q_u8(qs);
    codes32 c = {vsubq_s8(vreinterpretq_s8_u8(vorrq_u8(vandq_u8(b, vdupq_n_u8(0x0F)), fifth_bits16(bits))),
                          vdupq_n_s8((int8_t)offset)),
                 vsubq_s8(vreinterpretq_s8_u8(vorrq_u8(vshrq_n_u8(b, 4), fifth_bits16(bits >> 16))),
                          vdupq_n_s8((int8_t)offset))};
    return c;
}

NEON_INLINE codes32 codes_q8(const int8_t *qs) {
    codes32 c = {vld1q_s8(qs), vld1q_s8(qs + 16)};
    return c;
}

/// Lanes {w0.a0, w0.a1, w1.a0, w1.a1} of one block.
NEON_I8MM static inline int32x4_t mmla_block(codes32 w0, codes32 w1, codes32 a0, codes32 a1) {
#define PAIR(zip, x, y) vreinterpretq_s8_s64(zip(vreinterpretq_s64_s8(x), vreinterpretq_s64_s8(y)))
    int32x4_t s = vmmlaq_s32(vdupq_n_s32(0), PAIR(vzip1q_s64, w0.lo, w1.lo), PAIR(vzip1q_s64, a0.lo, a1.lo));
    s = vmmlaq_s32(s, PAIR(vzip2q_s64, w0.lo, w1.lo), PAIR(vzip2q_s64, a0.lo, a1.lo));
    s = vmmlaq_s32(s, PAIR(vzip1q_s64, w0.hi, w1.hi), PAIR(vzip1q_s64, a0.hi, a1.hi));
    return vmmlaq_s32(s, PAIR(vzip2q_s64, w0.hi, w1.hi), PAIR(vzip2q_s64, a0.hi, a1.hi));
#undef PAIR
}

/// {x0 y0, x0 y1, x1 y0, x1 y1} for halves x0, x1 (weight rows) and y0, y1 (tokens).
NEON_INLINE float32x4_t outer_halves(half_t x0, half_t x1, half_t y0, half_t y1) {
    float32x4_t x = {f16_to_f32(x0), f16_to_f32(x0), f16_to_f32(x1), f16_to_f32(x1)};
    float32x4_t y = {f16_to_f32(y0), f16_to_f32(y1), f16_to_f32(y0), f16_to_f32(y1)};
    return vmulq_f32(x, y);
}

// DECODE(block) gives a weight block's codes32.
#define DOT2X2_SYMMETRIC(name, wblk)                                                           \
    NEON_I8MM static void name(int64_t n, const void *w, size_t wb, const void *a, size_t ab,  \
                               float out[4]) {                                                 \
        const wblk *x0 = w, *x1 = (const wblk *)((const char *)w + wb);                        \
        const blk_q8_0 *y0 = a, *y1 = (const blk_q8_0 *)((const char *)a + ab);               \
        float32x4_t acc = vdupq_n_f32(0);                                                      \
        for (int64_t i = 0; i < n / QK; i++) {                                                 \
            int32x4_t s = mmla_block(DECODE(&x0[i]), DECODE(&x1[i]), codes_q8(y0[i].qs),       \
                                     codes_q8(y1[i].qs));                                      \
            acc = vfmaq_f32(acc, vcvtq_f32_s32(s), outer_halves(x0[i].d, x1[i].d, y0[i].d, y1[i].d)); \
        }                                                                                      \
        vst1q_f32(out, acc);                                                                   \
    }

#define DOT2X2_WITH_MIN(name, wblk)                                                            \
    NEON_I8MM static void name(int64_t n, const void *w, size_t wb, const void *a, size_t ab,  \
                               float out[4]) {                                                 \
        const wblk *x0 = w, *x1 = (const wblk *)((const char *)w + wb);                        \
        const blk_q8_1 *y0 = a, *y1 = (const blk_q8_1 *)((const char *)a + ab);               \
        float32x4_t acc = vdupq_n_f32(0), mins = vdupq_n_f32(0);                               \
        for (int64_t i = 0; i < n / QK; i++) {                                                 \
            int32x4_t s = mmla_block(DECODE(&x0[i]), DECODE(&x1[i]), codes_q8(y0[i].qs),       \
                                     codes_q8(y1[i].qs));                                      \
            acc = vfmaq_f32(acc, vcvtq_f32_s32(s), outer_halves(x0[i].d, x1[i].d, y0[i].d, y1[i].d)); \
            mins = vaddq_f32(mins, outer_halves(x0[i].m, x1[i].m, y0[i].s, y1[i].s));           \
        }                                                                                      \
        vst1q_f32(out, vaddq_f32(acc, mins));                                                  \
    }

#define DECODE(b) codes_q4((b)->qs, 8)
DOT2X2_SYMMETRIC(dot2x2_q4_0, blk_q4_0)
#undef DECODE
#define DECODE(b) codes_q5((b)->qh, (b)->qs, 16)
DOT2X2_SYMMETRIC(dot2x2_q5_0, blk_q5_0)
#undef DECODE
#define DECODE(b) codes_q8((b)->qs)
DOT2X2_SYMMETRIC(dot2x2_q8_0, blk_q8_0)
#undef DECODE
#define DECODE(b) codes_q4((b)->qs, 0)
DOT2X2_WITH_MIN(dot2x2_q4_1, blk_q4_1)
#undef DECODE
#define DECODE(b) codes_q5((b)->qh, (b)->qs, 0)
DOT2X2_WITH_MIN(dot2x2_q5_1, blk_q5_1)
#undef DECODE

/// s += the four row-token sums of one 16-element group: rows w0, w1 against the activation
/// groups at a0 and a1.
NEON_I8MM static inline int32x4_t mmla16(int32x4_t s, int8x16_t w0, int8x16_t w1, const int8_t *a0,
                                         const int8_t *a1) {
    int8x16_t y0 = vld1q_s8(a0), y1 = vld1q_s8(a1);
#define PAIR(zip, x, y) vreinterpretq_s8_s64(zip(vreinterpretq_s64_s8(x), vreinterpretq_s64_s8(y)))
    s = vmmlaq_s32(s, PAIR(vzip1q_s64, w0, w1), PAIR(vzip1q_s64, y0, y1));
    return vmmlaq_s32(s, PAIR(vzip2q_s64, w0, w1), PAIR(vzip2q_s64, y0, y1));
#undef PAIR
}

/// Lanes {a, a, b, b}: row 0's and row 1's integer scale for the two tokens.
NEON_INLINE int32x4_t scale_pair(int a, int b) { return vcombine_s32(vdup_n_s32(a), vdup_n_s32(b)); }

/// {x0 y0, x0 y1, x1 y0, x1 y1} for half weight scales x and float activation scales y.
NEON_INLINE float32x4_t outer_kscales(half_t x0, half_t x1, float y0, float y1) {
    float32x4_t x = {f16_to_f32(x0), f16_to_f32(x0), f16_to_f32(x1), f16_to_f32(x1)};
    float32x4_t y = {y0, y1, y0, y1};
    return vmulq_f32(x, y);
}

// Q4_K/Q5_K: one scale and one min per 32 elements (two SMMLA groups); chunk_codes decodes 64.
#define DOT2X2_KQUANT_MIN(name, wblk, chunk_codes)                                             \
    NEON_I8MM static void name(int64_t n, const void *w, size_t wb, const void *a, size_t ab,  \
                               float out[4]) {                                                 \
        const wblk *x0 = w, *x1 = (const wblk *)((const char *)w + wb);                        \
        const blk_q8_K *y0 = a, *y1 = (const blk_q8_K *)((const char *)a + ab);               \
        const int32x4_t zero = vdupq_n_s32(0);                                                 \
        float32x4_t acc = vdupq_n_f32(0);                                                      \
        for (int64_t i = 0; i < n / QK_K; i++) {                                               \
            uint8x16_t sm0 = kquant_scales_mins(x0[i].scales), sm1 = kquant_scales_mins(x1[i].scales); \
            uint8_t s0[16], s1[16];                                                            \
            vst1q_u8(s0, sm0);                                                                 \
            vst1q_u8(s1, sm1);                                                                 \
            int32x4_t isum = zero;                                                             \
            for (int c = 0; c < 4; c++) {                                                      \
                int8x16_t q0[4], q1[4];                                                        \
                chunk_codes(&x0[i], c, q0);                                                    \
                chunk_codes(&x1[i], c, q1);                                                    \
                const int8_t *a0 = y0[i].qs + 64 * c, *a1 = y1[i].qs + 64 * c;                 \
                int32x4_t lo = mmla16(mmla16(zero, q0[0], q1[0], a0, a1), q0[1], q1[1], a0 + 16, a1 + 16); \
                int32x4_t hi = mmla16(mmla16(zero, q0[2], q1[2], a0 + 32, a1 + 32), q0[3], q1[3], \
                                      a0 + 48, a1 + 48);                                       \
                isum = vmlaq_s32(isum, lo, scale_pair(s0[2 * c], s1[2 * c]));                  \
                isum = vmlaq_s32(isum, hi, scale_pair(s0[2 * c + 1], s1[2 * c + 1]));          \
            }                                                                                  \
            int32_t m[4] = {kquant_min_sum(sm0, y0[i].bsums), kquant_min_sum(sm0, y1[i].bsums),  \
                            kquant_min_sum(sm1, y0[i].bsums), kquant_min_sum(sm1, y1[i].bsums)}; \
            acc = vfmaq_f32(acc, vcvtq_f32_s32(isum), outer_kscales(x0[i].d, x1[i].d, y0[i].d, y1[i].d)); \
            acc = vfmsq_f32(acc, vcvtq_f32_s32(vld1q_s32(m)),                                  \
                            outer_kscales(x0[i].dmin, x1[i].dmin, y0[i].d, y1[i].d));           \
        }                                                                                      \
        vst1q_f32(out, acc);                                                                   \
    }

DOT2X2_KQUANT_MIN(dot2x2_q4_K, blk_q4_K, q4k_chunk_codes)
DOT2X2_KQUANT_MIN(dot2x2_q5_K, blk_q5_K, q5k_chunk_codes)
#undef DOT2X2_KQUANT_MIN

NEON_I8MM static void dot2x2_q6_K(int64_t n, const void *w, size_t wb, const void *a, size_t ab,
                                  float out[4]) {
    const blk_q6_K *x0 = w, *x1 = (const blk_q6_K *)((const char *)w + wb);
    const blk_q8_K *y0 = a, *y1 = (const blk_q8_K *)((const char *)a + ab);
    const int32x4_t zero = vdupq_n_s32(0);
    float32x4_t acc = vdupq_n_f32(0);
    for (int64_t i = 0; i < n / QK_K; i++) {
        int32x4_t isum = zero;
        for (int half = 0; half < 2; half++) {
            int8x16_t u0[8], u1[8];
            q6k_half_codes(&x0[i], half, u0);
            q6k_half_codes(&x1[i], half, u1);
            const int8_t *a0 = y0[i].qs + 128 * half, *a1 = y1[i].qs + 128 * half;
            for (int g = 0; g < 8; g++)
                isum = vmlaq_s32(isum, mmla16(zero, u0[g], u1[g], a0 + 16 * g, a1 + 16 * g),
                                 scale_pair(x0[i].scales[8 * half + g], x1[i].scales[8 * half + g]));
        }
        acc = vfmaq_f32(acc, vcvtq_f32_s32(isum), outer_kscales(x0[i].d, x1[i].d, y0[i].d, y1[i].d));
    }
    vst1q_f32(out, acc);
}

odk_dot2x2_fn odk_i8mm_kernel2x2(int32_t t) {
    switch (t) {
    case T_Q4_0: return dot2x2_q4_0;
    case T_Q4_1: return dot2x2_q4_1;
    case T_Q5_0: return dot2x2_q5_0;
    case T_Q5_1: return dot2x2_q5_1;
    case T_Q8_0: return dot2x2_q8_0;
    case T_Q4_K: return dot2x2_q4_K;
    case T_Q5_K: return dot2x2_q5_K;
    case T_Q6_K: return dot2x2_q6_K;
    default: return NULL;
    }
}
#else
odk_dot2x2_fn odk_i8mm_kernel2x2(int32_t t) { (void)t; return NULL; }
#endif
