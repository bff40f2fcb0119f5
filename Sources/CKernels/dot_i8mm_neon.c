// Two-by-two NEON kernels with SMMLA (vmmlaq_s32, FEAT_I8MM) for the 32-element block formats:
// two weight rows against two activation rows, for prompt processing (odk_matmul_rows with
// two or more tokens). SMMLA multiplies a 2x8 int8 matrix by the transpose of another, so each
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

odk_dot2x2_fn odk_i8mm_kernel2x2(int32_t t) {
    switch (t) {
    case T_Q4_0: return dot2x2_q4_0;
    case T_Q4_1: return dot2x2_q4_1;
    case T_Q5_0: return dot2x2_q5_0;
    case T_Q5_1: return dot2x2_q5_1;
    case T_Q8_0: return dot2x2_q8_0;
    default: return NULL;
    }
}
#else
odk_dot2x2_fn odk_i8mm_kernel2x2(int32_t t) { (void)t; return NULL; }
#endif
