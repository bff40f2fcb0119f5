// Portable scalar dot kernels: integer sums per block, one float multiply per block, in the
// same order of operations as the SIMD kernels up to float summation order.
#include "blocks.h"

static float dot_f32(int64_t n, const void *w, const void *a) {
    const float *x = w, *y = a;
    float s = 0;
    for (int64_t i = 0; i < n; i++) s += x[i] * y[i];
    return s;
}

static float dot_f16(int64_t n, const void *w, const void *a) {
    const uint16_t *x = w;
    const float *y = a;
    float s = 0;
    for (int64_t i = 0; i < n; i++) s += h2f(x[i]) * y[i];
    return s;
}

static float dot_bf16(int64_t n, const void *w, const void *a) {
    const uint16_t *x = w;
    const float *y = a;
    float s = 0;
    for (int64_t i = 0; i < n; i++) s += bf16_to_f32(x[i]) * y[i];
    return s;
}

static float dot_q4_0(int64_t n, const void *w, const void *a) {
    const blk_q4_0 *x = w;
    const blk_q8_0 *y = a;
    float s = 0;
    for (int64_t i = 0; i < n / QK; i++) {
        int sum = 0;
        for (int j = 0; j < 16; j++) {
            sum += ((x[i].qs[j] & 0x0F) - 8) * y[i].qs[j];
            sum += ((x[i].qs[j] >> 4) - 8) * y[i].qs[j + 16];
        }
        s += (float)sum * (h2f(x[i].d) * h2f(y[i].d));
    }
    return s;
}

static float dot_q4_1(int64_t n, const void *w, const void *a) {
    const blk_q4_1 *x = w;
    const blk_q8_1 *y = a;
    float s = 0;
    for (int64_t i = 0; i < n / QK; i++) {
        int sum = 0;
        for (int j = 0; j < 16; j++) {
            sum += (x[i].qs[j] & 0x0F) * y[i].qs[j];
            sum += (x[i].qs[j] >> 4) * y[i].qs[j + 16];
        }
        s += (float)sum * (h2f(x[i].d) * h2f(y[i].d)) + h2f(x[i].m) * h2f(y[i].s);
    }
    return s;
}

static float dot_q5_0(int64_t n, const void *w, const void *a) {
    const blk_q5_0 *x = w;
    const blk_q8_0 *y = a;
    float s = 0;
    for (int64_t i = 0; i < n / QK; i++) {
        uint32_t qh;
        memcpy(&qh, x[i].qh, 4);
        int sum = 0;
        for (int j = 0; j < 16; j++) {
            int lo = (x[i].qs[j] & 0x0F) | (int)(((qh >> j) & 1) << 4);
            int hi = (x[i].qs[j] >> 4) | (int)(((qh >> (j + 16)) & 1) << 4);
            sum += (lo - 16) * y[i].qs[j] + (hi - 16) * y[i].qs[j + 16];
        }
        s += (float)sum * (h2f(x[i].d) * h2f(y[i].d));
    }
    return s;
}

static float dot_q5_1(int64_t n, const void *w, const void *a) {
    const blk_q5_1 *x = w;
    const blk_q8_1 *y = a;
    float s = 0;
    for (int64_t i = 0; i < n / QK; i++) {
        uint32_t qh;
        memcpy(&qh, x[i].qh, 4);
        int sum = 0;
        for (int j = 0; j < 16; j++) {
            int lo = (x[i].qs[j] & 0x0F) | (int)(((qh >> j) & 1) << 4);
            int hi = (x[i].qs[j] >> 4) | (int)(((qh >> (j + 16)) & 1) << 4);
            sum += lo * y[i].qs[j] + hi * y[i].qs[j + 16];
        }
        s += (float)sum * (h2f(x[i].d) * h2f(y[i].d)) + h2f(x[i].m) * h2f(y[i].s);
    }
    return s;
}

static float dot_q8_0(int64_t n, const void *w, const void *a) {
    const blk_q8_0 *x = w;
    const blk_q8_0 *y = a;
    float s = 0;
    for (int64_t i = 0; i < n / QK; i++) {
        int sum = 0;
        for (int j = 0; j < QK; j++) sum += x[i].qs[j] * y[i].qs[j];
        s += (float)sum * (h2f(x[i].d) * h2f(y[i].d));
    }
    return s;
}

// K-quants: each super-block is decoded to 256 small integers `q` plus one integer scale per 16
// elements; the result is d_a * (d * sum_g sc[g] * <q, a>_g - dmin * sum_g mn[g] * bsum[g]).
static float kquant_finish(const int8_t q[256], const int sc[16], const int mn[16],
                           const blk_q8_K *y, float d, float dmin) {
    int sum = 0, msum = 0;
    for (int g = 0; g < 16; g++) {
        int gs = 0;
        for (int j = 0; j < 16; j++) gs += q[g * 16 + j] * y->qs[g * 16 + j];
        sum += sc[g] * gs;
        msum += mn[g] * y->bsums[g];
    }
    return y->d * (d * (float)sum - dmin * (float)msum);
}

static float dot_q2_K(int64_t n, const void *w, const void *a) {
    const blk_q2_K *x = w;
    const blk_q8_K *y = a;
    float s = 0;
    for (int64_t i = 0; i < n / QK_K; i++) {
        int8_t q[256];
        int sc[16], mn[16];
        for (int g = 0; g < 16; g++) { sc[g] = x[i].scales[g] & 0x0F; mn[g] = x[i].scales[g] >> 4; }
        for (int e = 0; e < 256; e++) {
            int half = e / 128, j = (e % 128) / 32, l = e % 32;
            q[e] = (int8_t)((x[i].qs[half * 32 + l] >> (2 * j)) & 3);
        }
        s += kquant_finish(q, sc, mn, &y[i], h2f(x[i].d), h2f(x[i].dmin));
    }
    return s;
}

static float dot_q3_K(int64_t n, const void *w, const void *a) {
    const blk_q3_K *x = w;
    const blk_q8_K *y = a;
    float s = 0;
    static const int zero[16] = {0};
    for (int64_t i = 0; i < n / QK_K; i++) {
        int8_t q[256];
        int sc[16];
        q3k_scales(x[i].scales, sc);
        for (int e = 0; e < 256; e++) {
            int half = e / 128, j = (e % 128) / 32, l = e % 32;
            int lo = (x[i].qs[half * 32 + l] >> (2 * j)) & 3;
            int hbit = (x[i].hmask[l] >> (half * 4 + j)) & 1;
            q[e] = (int8_t)(lo - (hbit ? 0 : 4));
        }
        s += kquant_finish(q, sc, zero, &y[i], h2f(x[i].d), 0.0f);
    }
    return s;
}

static float dot_q4_K(int64_t n, const void *w, const void *a) {
    const blk_q4_K *x = w;
    const blk_q8_K *y = a;
    float s = 0;
    for (int64_t i = 0; i < n / QK_K; i++) {
        int8_t q[256];
        int sc[16], mn[16];
        for (int j = 0; j < 8; j++) {
            int c, m;
            kquant_scale_min(j, x[i].scales, &c, &m);
            sc[2 * j] = sc[2 * j + 1] = c;
            mn[2 * j] = mn[2 * j + 1] = m;
        }
        for (int c = 0; c < 4; c++) {
            for (int l = 0; l < 32; l++) {
                q[c * 64 + l] = (int8_t)(x[i].qs[c * 32 + l] & 0x0F);
                q[c * 64 + 32 + l] = (int8_t)(x[i].qs[c * 32 + l] >> 4);
            }
        }
        s += kquant_finish(q, sc, mn, &y[i], h2f(x[i].d), h2f(x[i].dmin));
    }
    return s;
}

static float dot_q5_K(int64_t n, const void *w, const void *a) {
    const blk_q5_K *x = w;
    const blk_q8_K *y = a;
    float s = 0;
    for (int64_t i = 0; i < n / QK_K; i++) {
        int8_t q[256];
        int sc[16], mn[16];
        for (int j = 0; j < 8; j++) {
            int c, m;
            kquant_scale_min(j, x[i].scales, &c, &m);
            sc[2 * j] = sc[2 * j + 1] = c;
            mn[2 * j] = mn[2 * j + 1] = m;
        }
        for (int c = 0; c < 4; c++) {
            for (int l = 0; l < 32; l++) {
                int h0 = (x[i].qh[l] >> (2 * c)) & 1, h1 = (x[i].qh[l] >> (2 * c + 1)) & 1;
                q[c * 64 + l] = (int8_t)((x[i].qs[c * 32 + l] & 0x0F) | (h0 << 4));
                q[c * 64 + 32 + l] = (int8_t)((x[i].qs[c * 32 + l] >> 4) | (h1 << 4));
            }
        }
        s += kquant_finish(q, sc, mn, &y[i], h2f(x[i].d), h2f(x[i].dmin));
    }
    return s;
}

static float dot_q6_K(int64_t n, const void *w, const void *a) {
    const blk_q6_K *x = w;
    const blk_q8_K *y = a;
    float s = 0;
    static const int zero[16] = {0};
    for (int64_t i = 0; i < n / QK_K; i++) {
        int8_t q[256];
        int sc[16];
        for (int g = 0; g < 16; g++) sc[g] = x[i].scales[g];
        for (int half = 0; half < 2; half++) {
            const uint8_t *ql = x[i].ql + 64 * half, *qh = x[i].qh + 32 * half;
            int8_t *o = q + 128 * half;
            for (int l = 0; l < 32; l++) {
                o[l] = (int8_t)(((ql[l] & 0x0F) | (((qh[l] >> 0) & 3) << 4)) - 32);
                o[l + 32] = (int8_t)(((ql[l + 32] & 0x0F) | (((qh[l] >> 2) & 3) << 4)) - 32);
                o[l + 64] = (int8_t)(((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32);
                o[l + 96] = (int8_t)(((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32);
            }
        }
        s += kquant_finish(q, sc, zero, &y[i], h2f(x[i].d), 0.0f);
    }
    return s;
}

odk_dot_fn odk_scalar_kernel(int32_t t) {
    switch (t) {
    case T_F32: return dot_f32;
    case T_F16: return dot_f16;
    case T_BF16: return dot_bf16;
    case T_Q4_0: return dot_q4_0;
    case T_Q4_1: return dot_q4_1;
    case T_Q5_0: return dot_q5_0;
    case T_Q5_1: return dot_q5_1;
    case T_Q8_0: return dot_q8_0;
    case T_Q2_K: return dot_q2_K;
    case T_Q3_K: return dot_q3_K;
    case T_Q4_K: return dot_q4_K;
    case T_Q5_K: return dot_q5_K;
    case T_Q6_K: return dot_q6_K;
    default: return NULL;
    }
}
