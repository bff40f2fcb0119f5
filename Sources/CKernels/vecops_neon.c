// NEON versions of the transformer-layer vector ops in vecops.c. Same formulas: rms_norm and
// softmax sum in double, elementwise ops in the same order (add_scaled fused, as the compiler
// contracts the scalar loop on aarch64); softmax and silu use exp_f32x4 (about 1 ulp off expf).
#include <math.h>
#include "neon.h"
#if defined(__aarch64__)

void odk_rms_norm_neon(const float *x, const float *weight, float *out, int64_t n, float eps) {
    // float * float is exact in double, so each fused step rounds like the scalar add.
    float64x2_t s0 = vdupq_n_f64(0), s1 = vdupq_n_f64(0);
    int64_t i = 0;
    for (; i + 4 <= n; i += 4) {
        float32x4_t v = vld1q_f32(x + i);
        float64x2_t lo = vcvt_f64_f32(vget_low_f32(v)), hi = vcvt_high_f64_f32(v);
        s0 = vfmaq_f64(s0, lo, lo);
        s1 = vfmaq_f64(s1, hi, hi);
    }
    double ss = vaddvq_f64(vaddq_f64(s0, s1));
    for (; i < n; i++) ss += (double)x[i] * (double)x[i];
    float scale = 1.0f / sqrtf((float)(ss / (double)n) + eps);
    i = 0;
    if (weight) {
        for (; i + 4 <= n; i += 4)
            vst1q_f32(out + i, vmulq_f32(vmulq_n_f32(vld1q_f32(x + i), scale), vld1q_f32(weight + i)));
        for (; i < n; i++) out[i] = x[i] * scale * weight[i];
    } else {
        for (; i + 4 <= n; i += 4) vst1q_f32(out + i, vmulq_n_f32(vld1q_f32(x + i), scale));
        for (; i < n; i++) out[i] = x[i] * scale;
    }
}

void odk_softmax_neon(float *x, int64_t n) {
    if (n <= 0) return;
    float max = x[0];
    int64_t i = 0;
    if (n >= 4) {
        float32x4_t m = vld1q_f32(x);
        for (i = 4; i + 4 <= n; i += 4) m = vmaxq_f32(m, vld1q_f32(x + i));
        max = vmaxvq_f32(m);
    }
    for (; i < n; i++) max = x[i] > max ? x[i] : max;
    float64x2_t s0 = vdupq_n_f64(0), s1 = vdupq_n_f64(0);
    for (i = 0; i + 4 <= n; i += 4) {
        float32x4_t e = exp_f32x4(vsubq_f32(vld1q_f32(x + i), vdupq_n_f32(max)));
        vst1q_f32(x + i, e);
        s0 = vaddq_f64(s0, vcvt_f64_f32(vget_low_f32(e)));
        s1 = vaddq_f64(s1, vcvt_high_f64_f32(e));
    }
    double sum = vaddvq_f64(vaddq_f64(s0, s1));
    for (; i < n; i++) {
        float e = vgetq_lane_f32(exp_f32x4(vdupq_n_f32(x[i] - max)), 0);
        x[i] = e;
        sum += e;
    }
    float inv = (float)(1.0 / sum);
    odk_scale_neon(x, inv, n);
}

void odk_silu_neon(const float *x, float *out, int64_t n) {
    int64_t i = 0;
    const float32x4_t one = vdupq_n_f32(1.0f);
    for (; i + 4 <= n; i += 4) {
        float32x4_t v = vld1q_f32(x + i);
        vst1q_f32(out + i, vdivq_f32(v, vaddq_f32(one, exp_f32x4(vnegq_f32(v)))));
    }
    for (; i < n; i++) out[i] = x[i] / (1.0f + vgetq_lane_f32(exp_f32x4(vdupq_n_f32(-x[i])), 0));
}

void odk_add_neon(const float *a, const float *b, float *out, int64_t n) {
    int64_t i = 0;
    for (; i + 4 <= n; i += 4) vst1q_f32(out + i, vaddq_f32(vld1q_f32(a + i), vld1q_f32(b + i)));
    for (; i < n; i++) out[i] = a[i] + b[i];
}

void odk_mul_neon(const float *a, const float *b, float *out, int64_t n) {
    int64_t i = 0;
    for (; i + 4 <= n; i += 4) vst1q_f32(out + i, vmulq_f32(vld1q_f32(a + i), vld1q_f32(b + i)));
    for (; i < n; i++) out[i] = a[i] * b[i];
}

void odk_add_scaled_neon(const float *x, float s, float *out, int64_t n) {
    int64_t i = 0;
    for (; i + 4 <= n; i += 4) vst1q_f32(out + i, vfmaq_n_f32(vld1q_f32(out + i), vld1q_f32(x + i), s));
    for (; i < n; i++) out[i] = fmaf(s, x[i], out[i]);
}

void odk_scale_neon(float *x, float s, int64_t n) {
    int64_t i = 0;
    for (; i + 4 <= n; i += 4) vst1q_f32(x + i, vmulq_n_f32(vld1q_f32(x + i), s));
    for (; i < n; i++) x[i] *= s;
}
#endif
