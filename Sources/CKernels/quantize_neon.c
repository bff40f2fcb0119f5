// NEON activation quantizers. Same operations as the scalar ones in ckernels.c (max of |x|,
// 127/amax, x * id rounded to nearest even by FCVTNS, amax/127), so results are bit-identical.
#include <math.h>
#include "neon.h"
#if defined(__aarch64__)

NEON_INLINE float amax32(const float *x) {
    float32x4_t m = vabsq_f32(vld1q_f32(x));
    for (int j = 4; j < 32; j += 4) m = vmaxq_f32(m, vabsq_f32(vld1q_f32(x + j)));
    return vmaxvq_f32(m);
}

/// 32 floats times `scale`, rounded to nearest even and narrowed (saturating) to int8 in order;
/// adds the codes' sum to *sum when non-NULL.
NEON_INLINE void round_pack32(const float *x, float scale, int8_t *out, int *sum) {
    int32x4_t total = vdupq_n_s32(0);
    for (int j = 0; j < 32; j += 16) {
        int32x4_t i0 = vcvtnq_s32_f32(vmulq_n_f32(vld1q_f32(x + j), scale));
        int32x4_t i1 = vcvtnq_s32_f32(vmulq_n_f32(vld1q_f32(x + j + 4), scale));
        int32x4_t i2 = vcvtnq_s32_f32(vmulq_n_f32(vld1q_f32(x + j + 8), scale));
        int32x4_t i3 = vcvtnq_s32_f32(vmulq_n_f32(vld1q_f32(x + j + 12), scale));
        total = vaddq_s32(total, vaddq_s32(vaddq_s32(i0, i1), vaddq_s32(i2, i3)));
        int16x8_t lo = vcombine_s16(vqmovn_s32(i0), vqmovn_s32(i1));
        int16x8_t hi = vcombine_s16(vqmovn_s32(i2), vqmovn_s32(i3));
        vst1q_s8(out + j, vcombine_s8(vqmovn_s16(lo), vqmovn_s16(hi)));
    }
    if (sum) *sum = vaddvq_s32(total);
}

void odk_quantize_q8_0_neon(const float *x, void *dst, int64_t k) {
    blk_q8_0 *y = dst;
    for (int64_t i = 0; i < k / QK; i++, x += QK) {
        float amax = amax32(x);
        float id = amax != 0 ? 127.0f / amax : 0.0f;
        y[i].d = odk_fp32_to_fp16(amax / 127.0f);
        round_pack32(x, id, y[i].qs, NULL);
    }
}

void odk_quantize_q8_1_neon(const float *x, void *dst, int64_t k) {
    blk_q8_1 *y = dst;
    for (int64_t i = 0; i < k / QK; i++, x += QK) {
        float amax = amax32(x);
        float d = amax / 127.0f;
        float id = amax != 0 ? 127.0f / amax : 0.0f;
        int sum;
        round_pack32(x, id, y[i].qs, &sum);
        y[i].d = odk_fp32_to_fp16(d);
        y[i].s = odk_fp32_to_fp16(d * (float)sum);
    }
}

void odk_quantize_q8_K_neon(const float *x, void *dst, int64_t k) {
    blk_q8_K *y = dst;
    for (int64_t i = 0; i < k / QK_K; i++, x += QK_K) {
        float32x4_t m = vdupq_n_f32(0);
        for (int j = 0; j < QK_K; j += 4) m = vmaxq_f32(m, vabsq_f32(vld1q_f32(x + j)));
        float amax = vmaxvq_f32(m);
        if (amax == 0) {
            memset(&y[i], 0, sizeof(blk_q8_K));
            continue;
        }
        // The scalar quantizer keeps the first element of largest magnitude, sign included.
        float max = 0;
        for (int j = 0; j < QK_K; j++) {
            if (fabsf(x[j]) == amax) { max = x[j]; break; }
        }
        // |iscale * x| <= 127 up to rounding, so the saturating narrow is the scalar clamp.
        float iscale = -127.0f / max;
        for (int j = 0; j < QK_K; j += 32) round_pack32(x + j, iscale, y[i].qs + j, NULL);
        for (int g = 0; g < QK_K / 16; g++) y[i].bsums[g] = (int16_t)vaddlvq_s8(vld1q_s8(y[i].qs + 16 * g));
        y[i].d = 1.0f / iscale;
    }
}
#endif
