// NEON dot kernels for float weights and the 32-element block formats, and the NEON kernel
// table. The integer kernels (dot_neon_tmpl.h) exist twice: with SDOT (vdotq_s32, FEAT_DotProd)
// and with widening multiplies for cores without it (Cortex-A53/A55-class, Raspberry Pi 3/4).
// Reference for the techniques: ggml `ggml-cpu/arch/arm/quants.c`.
#include "neon.h"
#if defined(__aarch64__)

static float dot_f32(int64_t n, const void *w, const void *a) {
    const float *x = w, *y = a;
    float32x4_t s0 = vdupq_n_f32(0), s1 = s0, s2 = s0, s3 = s0;
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        s0 = vfmaq_f32(s0, vld1q_f32(x + i), vld1q_f32(y + i));
        s1 = vfmaq_f32(s1, vld1q_f32(x + i + 4), vld1q_f32(y + i + 4));
        s2 = vfmaq_f32(s2, vld1q_f32(x + i + 8), vld1q_f32(y + i + 8));
        s3 = vfmaq_f32(s3, vld1q_f32(x + i + 12), vld1q_f32(y + i + 12));
    }
    for (; i + 4 <= n; i += 4) s0 = vfmaq_f32(s0, vld1q_f32(x + i), vld1q_f32(y + i));
    float s = vaddvq_f32(vaddq_f32(vaddq_f32(s0, s1), vaddq_f32(s2, s3)));
    for (; i < n; i++) s += x[i] * y[i];
    return s;
}

static float dot_f16(int64_t n, const void *w, const void *a) {
    const uint16_t *x = w;
    const float *y = a;
    float32x4_t s0 = vdupq_n_f32(0), s1 = s0, s2 = s0, s3 = s0;
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        float16x8_t h0 = vreinterpretq_f16_u16(vld1q_u16(x + i));
        float16x8_t h1 = vreinterpretq_f16_u16(vld1q_u16(x + i + 8));
        s0 = vfmaq_f32(s0, vcvt_f32_f16(vget_low_f16(h0)), vld1q_f32(y + i));
        s1 = vfmaq_f32(s1, vcvt_high_f32_f16(h0), vld1q_f32(y + i + 4));
        s2 = vfmaq_f32(s2, vcvt_f32_f16(vget_low_f16(h1)), vld1q_f32(y + i + 8));
        s3 = vfmaq_f32(s3, vcvt_high_f32_f16(h1), vld1q_f32(y + i + 12));
    }
    for (; i + 4 <= n; i += 4)
        s0 = vfmaq_f32(s0, vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(x + i))), vld1q_f32(y + i));
    float s = vaddvq_f32(vaddq_f32(vaddq_f32(s0, s1), vaddq_f32(s2, s3)));
    for (; i < n; i++) s += f16_to_f32(x[i]) * y[i];
    return s;
}

static float dot_bf16(int64_t n, const void *w, const void *a) {
    const uint16_t *x = w;
    const float *y = a;
    float32x4_t s0 = vdupq_n_f32(0), s1 = s0;
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint16x8_t b = vld1q_u16(x + i);
        s0 = vfmaq_f32(s0, vreinterpretq_f32_u32(vshll_n_u16(vget_low_u16(b), 16)), vld1q_f32(y + i));
        s1 = vfmaq_f32(s1, vreinterpretq_f32_u32(vshll_high_n_u16(b, 16)), vld1q_f32(y + i + 4));
    }
    float s = vaddvq_f32(vaddq_f32(s0, s1));
    for (; i < n; i++) s += bf16_to_f32(x[i]) * y[i];
    return s;
}

#define NEON_TMPL_BLOCKS32
#include "dot_neon_tiers.h"
#undef NEON_TMPL_BLOCKS32

odk_dot_fn odk_neon_kernel_kquant(int32_t t, int tier);

odk_dot_fn odk_neon_kernel(int32_t t, int tier) {
    int dp = tier >= ODK_TIER_DOTPROD;
    switch (t) {
    case T_F32: return dot_f32;
    case T_F16: return dot_f16;
    case T_BF16: return dot_bf16;
    case T_Q4_0: return dp ? dot_q4_0_dotprod : dot_q4_0_neon;
    case T_Q4_1: return dp ? dot_q4_1_dotprod : dot_q4_1_neon;
    case T_Q5_0: return dp ? dot_q5_0_dotprod : dot_q5_0_neon;
    case T_Q5_1: return dp ? dot_q5_1_dotprod : dot_q5_1_neon;
    case T_Q8_0: return dp ? dot_q8_0_dotprod : dot_q8_0_neon;
    default: return odk_neon_kernel_kquant(t, tier);
    }
}

#else
odk_dot_fn odk_neon_kernel(int32_t t, int tier) { (void)t; (void)tier; return NULL; }
#endif
