// Internal: NEON building blocks shared by the *_neon.c kernel files (aarch64 only). Plain NEON
// (Advanced SIMD) is part of the AArch64 base ISA; dotprod and i8mm kernels carry per-function
// target attributes, so no file needs compiler flags and each runs only after the CPU check.
#ifndef ONDEVICE_CKERNELS_NEON_H
#define ONDEVICE_CKERNELS_NEON_H
#include "blocks.h"  // before the architecture check: the other architectures' stub tables need it
#if defined(__aarch64__)
#include <arm_neon.h>

// GCC's arm_neon.h declares SDOT/SMMLA under "arch=armv8.2-a+..." pragmas, and a caller must
// enable at least as much; clang takes plain feature names.
#if defined(__clang__)
#define NEON_DOTPROD __attribute__((target("dotprod")))
#define NEON_I8MM __attribute__((target("dotprod,i8mm")))
#else
#define NEON_DOTPROD __attribute__((target("arch=armv8.2-a+dotprod")))
#define NEON_I8MM __attribute__((target("arch=armv8.2-a+dotprod+i8mm")))
#endif
#define NEON_INLINE static inline __attribute__((always_inline))

/// IEEE half -> float with the FCVT instruction (exact, like odk_fp16_to_fp32).
NEON_INLINE float f16_to_f32(half_t h) {
    __fp16 v;
    memcpy(&v, &h, 2);
    return (float)v;
}

/// Without SDOT: a += the 16 products a_j * b_j, in pairs per int32 lane. int8 * int8 fits in
/// int16 (|-128 * -128| = 16384), so the widening multiply and pairwise add are exact.
NEON_INLINE int32x4_t dot_s8_plain(int32x4_t acc, int8x16_t a, int8x16_t b) {
    int16x8_t lo = vmull_s8(vget_low_s8(a), vget_low_s8(b));
    int16x8_t hi = vmull_high_s8(a, b);
    return vpadalq_s16(vpadalq_s16(acc, lo), hi);
}

/// Byte j (0..15) of the result is 0x10 when bit j of `bits` is set, else 0: the fifth bits of
/// Q5_0/Q5_1 codes.
NEON_INLINE uint8x16_t fifth_bits16(uint32_t bits) {
    static const uint8_t bit[16] = {1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128};
    uint8x16_t v = vcombine_u8(vdup_n_u8((uint8_t)bits), vdup_n_u8((uint8_t)(bits >> 8)));
    return vandq_u8(vtstq_u8(v, vld1q_u8(bit)), vdupq_n_u8(0x10));
}

/// Sixteen int8 scales as four int32x4 (groups 0-3, 4-7, 8-11, 12-15).
NEON_INLINE void widen_scales(int8x16_t s, int32x4_t out[4]) {
    int16x8_t lo = vmovl_s8(vget_low_s8(s)), hi = vmovl_high_s8(s);
    out[0] = vmovl_s16(vget_low_s16(lo));
    out[1] = vmovl_high_s16(lo);
    out[2] = vmovl_s16(vget_low_s16(hi));
    out[3] = vmovl_high_s16(hi);
}

/// sum_g w[g] * bsums[g] over the 16 groups of a Q8_K block, for int8 weights `w`.
NEON_INLINE int weighted_bsums(int8x16_t w, const int16_t *bsums) {
    int16x8_t lo = vmovl_s8(vget_low_s8(w)), hi = vmovl_high_s8(w);
    int16x8_t b0 = vld1q_s16(bsums), b1 = vld1q_s16(bsums + 8);
    int32x4_t s = vmull_s16(vget_low_s16(lo), vget_low_s16(b0));
    s = vmlal_high_s16(s, lo, b0);
    s = vmlal_s16(s, vget_low_s16(hi), vget_low_s16(b1));
    s = vmlal_high_s16(s, hi, b1);
    return vaddvq_s32(s);
}

/// Q4_K/Q5_K: the eight 6-bit scales (bytes 0-7) and mins (bytes 8-15) of the 12 packed bytes
/// (see kquant_scale_min), unpacked four at a time with word masks.
NEON_INLINE uint8x16_t kquant_scales_mins(const uint8_t *s) {
    uint32_t w0, w1, w2;
    memcpy(&w0, s, 4);
    memcpy(&w1, s + 4, 4);
    memcpy(&w2, s + 8, 4);
    const uint32_t low6 = 0x3F3F3F3Fu, lo4 = 0x0F0F0F0Fu, top2 = 0x30303030u;
    uint32_t v[4] = {w0 & low6, (w2 & lo4) | ((w0 >> 2) & top2),
                     w1 & low6, ((w2 >> 4) & lo4) | ((w1 >> 2) & top2)};
    return vld1q_u8((const uint8_t *)v);
}

/// Q3_K's sixteen 6-bit scales minus 32, as int8 (see q3k_scales for the bit positions).
NEON_INLINE int8x16_t q3k_scales_i8(const uint8_t *s) {
    uint32_t a0, a1, a2;
    memcpy(&a0, s, 4);
    memcpy(&a1, s + 4, 4);
    memcpy(&a2, s + 8, 4);
    const uint32_t lo4 = 0x0F0F0F0Fu, hi2 = 0x03030303u;
    uint32_t v[4] = {(a0 & lo4) | (a2 & hi2) << 4, (a1 & lo4) | ((a2 >> 2) & hi2) << 4,
                     ((a0 >> 4) & lo4) | ((a2 >> 4) & hi2) << 4, ((a1 >> 4) & lo4) | ((a2 >> 6) & hi2) << 4};
    return vsubq_s8(vld1q_s8((const int8_t *)v), vdupq_n_s8(32));
}

/// Q4_K chunk c (elements 64c..64c+63) as four groups of 16 codes 0..15.
NEON_INLINE void q4k_chunk_codes(const blk_q4_K *x, int c, int8x16_t q[4]) {
    uint8x16_t q0 = vld1q_u8(x->qs + 32 * c), q1 = vld1q_u8(x->qs + 32 * c + 16);
    const uint8x16_t m4 = vdupq_n_u8(0x0F);
    q[0] = vreinterpretq_s8_u8(vandq_u8(q0, m4));
    q[1] = vreinterpretq_s8_u8(vandq_u8(q1, m4));
    q[2] = vreinterpretq_s8_u8(vshrq_n_u8(q0, 4));
    q[3] = vreinterpretq_s8_u8(vshrq_n_u8(q1, 4));
}

/// Q5_K chunk c as four groups of 16 codes 0..31: low nibbles take qh bit 2c, high nibbles
/// bit 2c + 1.
NEON_INLINE void q5k_chunk_codes(const blk_q5_K *x, int c, int8x16_t q[4]) {
    uint8x16_t q0 = vld1q_u8(x->qs + 32 * c), q1 = vld1q_u8(x->qs + 32 * c + 16);
    int8x16_t down = vdupq_n_s8((int8_t)(-2 * c));
    uint8x16_t h0 = vshlq_u8(vld1q_u8(x->qh), down), h1 = vshlq_u8(vld1q_u8(x->qh + 16), down);
    const uint8x16_t m4 = vdupq_n_u8(0x0F), m1 = vdupq_n_u8(1), m2 = vdupq_n_u8(2);
    q[0] = vreinterpretq_s8_u8(vorrq_u8(vandq_u8(q0, m4), vshlq_n_u8(vandq_u8(h0, m1), 4)));
    q[1] = vreinterpretq_s8_u8(vorrq_u8(vandq_u8(q1, m4), vshlq_n_u8(vandq_u8(h1, m1), 4)));
    q[2] = vreinterpretq_s8_u8(vorrq_u8(vshrq_n_u8(q0, 4), vshlq_n_u8(vandq_u8(h0, m2), 3)));
    q[3] = vreinterpretq_s8_u8(vorrq_u8(vshrq_n_u8(q1, 4), vshlq_n_u8(vandq_u8(h1, m2), 3)));
}

/// Q6_K half h (elements 128h..128h+127) as eight groups of 16 signed codes (minus 32). Groups
/// in order: (ql[0..31] low, qh bits 0-1), (ql[32..63] low, bits 2-3), (ql[0..31] high,
/// bits 4-5), (ql[32..63] high, bits 6-7), each 32 elements as two groups.
NEON_INLINE void q6k_half_codes(const blk_q6_K *x, int h, int8x16_t u[8]) {
    const uint8_t *ql = x->ql + 64 * h, *qh = x->qh + 32 * h;
    uint8x16_t qa0 = vld1q_u8(ql), qa1 = vld1q_u8(ql + 16);
    uint8x16_t qb0 = vld1q_u8(ql + 32), qb1 = vld1q_u8(ql + 48);
    uint8x16_t h0 = vld1q_u8(qh), h1 = vld1q_u8(qh + 16);
    const uint8x16_t m4 = vdupq_n_u8(0x0F), m3 = vdupq_n_u8(3);
    const int8x16_t k32 = vdupq_n_s8(32);
#define Q6(lo4, hbits) vsubq_s8(vreinterpretq_s8_u8(vorrq_u8(lo4, vshlq_n_u8(hbits, 4))), k32)
    u[0] = Q6(vandq_u8(qa0, m4), vandq_u8(h0, m3));
    u[1] = Q6(vandq_u8(qa1, m4), vandq_u8(h1, m3));
    u[2] = Q6(vandq_u8(qb0, m4), vandq_u8(vshrq_n_u8(h0, 2), m3));
    u[3] = Q6(vandq_u8(qb1, m4), vandq_u8(vshrq_n_u8(h1, 2), m3));
    u[4] = Q6(vshrq_n_u8(qa0, 4), vandq_u8(vshrq_n_u8(h0, 4), m3));
    u[5] = Q6(vshrq_n_u8(qa1, 4), vandq_u8(vshrq_n_u8(h1, 4), m3));
    u[6] = Q6(vshrq_n_u8(qb0, 4), vshrq_n_u8(h0, 6));
    u[7] = Q6(vshrq_n_u8(qb1, 4), vshrq_n_u8(h1, 6));
#undef Q6
}

/// Q4_K/Q5_K mins term: sub-block j covers bsum groups 2j and 2j+1 (`scmn` from
/// kquant_scales_mins: mins in bytes 8-15).
NEON_INLINE int kquant_min_sum(uint8x16_t scmn, const int16_t *bsums) {
    int16x8_t pairs = vpaddq_s16(vld1q_s16(bsums), vld1q_s16(bsums + 8));
    int16x8_t mn = vreinterpretq_s16_u16(vmovl_high_u8(scmn));
    int32x4_t s = vmull_s16(vget_low_s16(mn), vget_low_s16(pairs));
    return vaddvq_s32(vmlal_high_s16(s, mn, pairs));
}

// exp on NEON: Cephes expf's range reduction (n = round(x / ln 2), r = x - n ln 2 in a
// Cody-Waite split) and degree-5 polynomial, about 1 ulp, as simd.h's exp_ps. Inputs are
// clamped to [-87, 88] so 2^n stays a normal float; below -87 the result is 0 (expf gives at
// most 1.6e-38 there).
NEON_INLINE float32x4_t exp_f32x4(float32x4_t x) {
    uint32x4_t tiny = vcltq_f32(x, vdupq_n_f32(-87.0f));
    x = vminq_f32(vmaxq_f32(x, vdupq_n_f32(-87.0f)), vdupq_n_f32(88.0f));
    float32x4_t n = vrndnq_f32(vmulq_n_f32(x, 1.44269504088896341f));
    float32x4_t r = vfmsq_f32(x, n, vdupq_n_f32(0.693359375f));
    r = vfmsq_f32(r, n, vdupq_n_f32(-2.12194440e-4f));
    float32x4_t p = vdupq_n_f32(1.9875691500e-4f);
    p = vfmaq_f32(vdupq_n_f32(1.3981999507e-3f), p, r);
    p = vfmaq_f32(vdupq_n_f32(8.3334519073e-3f), p, r);
    p = vfmaq_f32(vdupq_n_f32(4.1665795894e-2f), p, r);
    p = vfmaq_f32(vdupq_n_f32(1.6666665459e-1f), p, r);
    p = vfmaq_f32(vdupq_n_f32(5.0000001201e-1f), p, r);
    p = vfmaq_f32(vaddq_f32(r, vdupq_n_f32(1.0f)), vmulq_f32(p, r), r);
    int32x4_t e = vshlq_n_s32(vaddq_s32(vcvtq_s32_f32(n), vdupq_n_s32(127)), 23);
    float32x4_t y = vmulq_f32(p, vreinterpretq_f32_s32(e));
    return vreinterpretq_f32_u32(vbicq_u32(vreinterpretq_u32_f32(y), tiny));
}
#endif
#endif
