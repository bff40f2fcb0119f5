// Small vector ops of a transformer layer. Plain loops: they touch a few thousand floats per
// token, far below the matmuls, and the compiler vectorizes the simple ones. On aarch64 the
// public entry points take the NEON versions (vecops_neon.c); these loops are their twins.
#include <math.h>
#include <pthread.h>
#include "blocks.h"

#if defined(__aarch64__)
#define NEON_OR_SCALAR(op) (odk_tier() >= ODK_TIER_NEON ? op##_neon : op##_scalar)
#else
#define NEON_OR_SCALAR(op) op##_scalar
#endif

void odk_rms_norm_scalar(const float *x, const float *weight, float *out, int64_t n, float eps) {
    // Sum of squares in double as ggml does, so long rows lose no precision.
    double ss = 0;
    for (int64_t i = 0; i < n; i++) ss += (double)x[i] * (double)x[i];
    float scale = 1.0f / sqrtf((float)(ss / (double)n) + eps);
    if (weight) {
        for (int64_t i = 0; i < n; i++) out[i] = x[i] * scale * weight[i];
    } else {
        for (int64_t i = 0; i < n; i++) out[i] = x[i] * scale;
    }
}

void odk_softmax_scalar(float *x, int64_t n) {
    if (n <= 0) return;
    float max = x[0];
    for (int64_t i = 1; i < n; i++) max = x[i] > max ? x[i] : max;
    double sum = 0;
    for (int64_t i = 0; i < n; i++) {
        float e = expf(x[i] - max);
        x[i] = e;
        sum += e;
    }
    float inv = (float)(1.0 / sum);
    for (int64_t i = 0; i < n; i++) x[i] *= inv;
}

void odk_silu_scalar(const float *x, float *out, int64_t n) {
    for (int64_t i = 0; i < n; i++) out[i] = x[i] / (1.0f + expf(-x[i]));
}

void odk_gelu(const float *x, float *out, int64_t n) {
    const float k = 0.7978845608028654f;  // sqrt(2 / pi)
    for (int64_t i = 0; i < n; i++) {
        float v = x[i];
        out[i] = 0.5f * v * (1.0f + tanhf(k * v * (1.0f + 0.044715f * v * v)));
    }
}

// gelu(f16 input) rounded to f16, for every f16 bit pattern: 128 KiB, filled once.
static uint16_t gelu_f16_table[1 << 16];
static pthread_once_t gelu_f16_once = PTHREAD_ONCE_INIT;

static void fill_gelu_f16_table(void) {
    for (uint32_t h = 0; h < (1u << 16); h++) {
        float v = odk_fp16_to_fp32((uint16_t)h), g;
        odk_gelu(&v, &g, 1);
        gelu_f16_table[h] = odk_fp32_to_fp16(g);
    }
}

void odk_gelu_f16_rounded(const float *x, float *out, int64_t n) {
    // ggml's CPU GELU (GGML_GELU_FP16, on by default): saturate outside [-10, 10], otherwise
    // evaluate at the input rounded to f16 and round the result to f16. Like ggml, a table of
    // every f16 input's result replaces the tanhf per element (same values, a tenth of the time).
    pthread_once(&gelu_f16_once, fill_gelu_f16_table);
    for (int64_t i = 0; i < n; i++) {
        float v = x[i];
        if (v <= -10.0f) {
            out[i] = 0.0f;
        } else if (v >= 10.0f) {
            out[i] = v;
        } else {
            out[i] = odk_fp16_to_fp32(gelu_f16_table[odk_fp32_to_fp16(v)]);
        }
    }
}

void odk_add_scalar(const float *a, const float *b, float *out, int64_t n) {
    for (int64_t i = 0; i < n; i++) out[i] = a[i] + b[i];
}

void odk_mul_scalar(const float *a, const float *b, float *out, int64_t n) {
    for (int64_t i = 0; i < n; i++) out[i] = a[i] * b[i];
}

void odk_add_scaled_scalar(const float *x, float s, float *out, int64_t n) {
    for (int64_t i = 0; i < n; i++) out[i] += s * x[i];
}

void odk_scale_scalar(float *x, float s, int64_t n) {
    for (int64_t i = 0; i < n; i++) x[i] *= s;
}

void odk_rms_norm(const float *x, const float *weight, float *out, int64_t n, float eps) {
    NEON_OR_SCALAR(odk_rms_norm)(x, weight, out, n, eps);
}

void odk_softmax(float *x, int64_t n) { NEON_OR_SCALAR(odk_softmax)(x, n); }

void odk_silu(const float *x, float *out, int64_t n) { NEON_OR_SCALAR(odk_silu)(x, out, n); }

void odk_add(const float *a, const float *b, float *out, int64_t n) { NEON_OR_SCALAR(odk_add)(a, b, out, n); }

void odk_mul(const float *a, const float *b, float *out, int64_t n) { NEON_OR_SCALAR(odk_mul)(a, b, out, n); }

void odk_add_scaled(const float *x, float s, float *out, int64_t n) {
    NEON_OR_SCALAR(odk_add_scaled)(x, s, out, n);
}

void odk_scale(float *x, float s, int64_t n) { NEON_OR_SCALAR(odk_scale)(x, s, n); }
