// Prefill GEMM, part 1: portable decoding of weight rows and activation rows into the GEMM's
// common form, so one integer microkernel serves every quantized format.
//
// Weights: element j of a row is scale[g] * u[j] + min[g], with u an unsigned code <= 127 (so
// maddubs cannot saturate) and g = j / 16. Fixed offsets (Q4_0's -8, Q6_K's -32, ...) become
// part of `min`. Scales are stored expanded to 8 floats per 32 elements (lanes 0-3 for the
// first 16, 4-7 for the second), matching the int32 lanes of madd(maddubs(u, a), 1).
//
// Activations: per token, int8 codes[cols], float d[cols / 32] (the code scale of each 32
// elements) and float sum[cols / 16] (d * sum of codes per 16, for the min terms).
#include "blocks.h"
#include "gemm.h"

int odk_gemm_supports_avx2(int32_t t) {
    switch (t) {
    case T_Q4_0: case T_Q4_1: case T_Q5_0: case T_Q5_1:
    case T_Q2_K: case T_Q3_K: case T_Q4_K: case T_Q5_K: case T_Q6_K: return 1;
    default: return 0;
    }
}

size_t odk_gemm_panel_row_bytes_avx2(int64_t cols) {
    return (size_t)cols + (size_t)(cols / 32) * 4 + (size_t)(cols / 16) * 4;
}

// The public entry points: the AVX-512 form on that tier, the AVX2 form otherwise. Q4_1 and
// Q5_1 weights stay on the AVX2 form on both tiers: through the AVX-512 form SmolLM2's golden
// LoRA run moved past its tolerances (a teacher-forced logit 1.0019 from llama.cpp's against a
// 1.0 bound, and a greedy divergence at a 0.64 margin); the reason is not found yet. The
// AVX-512 kernels for them are still held to scalar by the tier harness.
static int gemm_avx512_for(int32_t t) { return odk_has_avx512() && t != T_Q4_1 && t != T_Q5_1; }

int odk_gemm_decodes_fast(int32_t t) {
    if (!gemm_avx512_for(t)) return 0;
    switch (t) {
    case T_Q4_0: case T_Q5_0: case T_Q8_0: case T_Q4_K: case T_Q5_K: case T_Q6_K: return 1;
    default: return 0;
    }
}

int odk_gemm_supports(int32_t t) {
    return gemm_avx512_for(t) ? odk_gemm_supports_avx512(t) : odk_gemm_supports_avx2(t);
}

size_t odk_gemm_panel_row_bytes(int64_t cols) {
    // Room for either form on the AVX-512 tier (the form is chosen by weight type).
    if (!odk_has_avx512()) return odk_gemm_panel_row_bytes_avx2(cols);
    size_t a = odk_gemm_panel_row_bytes_avx512(cols), b = odk_gemm_panel_row_bytes_avx2(cols);
    return a > b ? a : b;
}

void odk_gemm_prepare(int32_t t, int64_t cols, const void *act, size_t act_row_bytes, int64_t n, void *panel) {
    if (gemm_avx512_for(t)) odk_gemm_prepare_avx512(t, cols, act, act_row_bytes, n, panel);
    else odk_gemm_prepare_avx2(t, cols, act, act_row_bytes, n, panel);
}

void odk_gemm_rows(int32_t t, int64_t cols, const void *w, size_t w_row_bytes, int64_t row_begin, int64_t row_end,
                   const void *panel, int64_t n_tokens, float *out, int64_t out_stride, void *scratch) {
    if (gemm_avx512_for(t))
        odk_gemm_rows_avx512(t, cols, w, w_row_bytes, row_begin, row_end, panel, n_tokens, out, out_stride, scratch);
    else
        odk_gemm_rows_avx2(t, cols, w, w_row_bytes, row_begin, row_end, panel, n_tokens, out, out_stride, scratch);
}

void odk_gemm_prepare_avx2(int32_t t, int64_t cols, const void *act, size_t act_row_bytes,
                           int64_t n, void *panel) {
    size_t prb = odk_gemm_panel_row_bytes_avx2(cols);
    for (int64_t tk = 0; tk < n; tk++) {
        const char *src = (const char *)act + tk * act_row_bytes;
        int8_t *codes = (int8_t *)((char *)panel + tk * prb);
        float *d = (float *)(codes + cols), *sum = d + cols / 32;
        if (odk_activation_type(t) == T_Q8_K) {
            const blk_q8_K *y = (const blk_q8_K *)src;
            for (int64_t b = 0; b < cols / QK_K; b++) {
                memcpy(codes + b * QK_K, y[b].qs, QK_K);
                for (int k = 0; k < 8; k++) d[b * 8 + k] = y[b].d;
                for (int g = 0; g < 16; g++) sum[b * 16 + g] = y[b].d * (float)y[b].bsums[g];
            }
            continue;
        }
        int is_q8_1 = odk_activation_type(t) == T_Q8_1;
        size_t bs = is_q8_1 ? sizeof(blk_q8_1) : sizeof(blk_q8_0);
        for (int64_t b = 0; b < cols / QK; b++) {
            const uint8_t *blk = (const uint8_t *)src + b * bs;
            half_t h;
            memcpy(&h, blk, 2);
            const int8_t *qs = (const int8_t *)(blk + (is_q8_1 ? 4 : 2));
            memcpy(codes + b * QK, qs, QK);
            d[b] = h2f(h);
            for (int g = 0; g < 2; g++) {
                int s = 0;
                for (int j = 0; j < 16; j++) s += qs[g * 16 + j];
                sum[b * 2 + g] = d[b] * (float)s;
            }
        }
    }
}

/// Writes scale and min of group g (16 elements) of a row.
static inline void put_group(float *scale8, float *mins, int64_t g, float sc, float mn) {
    float *s = scale8 + (g / 2) * 8 + (g % 2) * 4;
    s[0] = s[1] = s[2] = s[3] = sc;
    mins[g] = mn;
}

static void decode_legacy(int32_t t, const void *row, int64_t cols, uint8_t *u, float *scale8, float *mins) {
    for (int64_t b = 0; b < cols / QK; b++) {
        const uint8_t *qs, *qh = NULL;
        float d, m;
        switch (t) {
        case T_Q4_0: { const blk_q4_0 *x = (const blk_q4_0 *)row + b; d = h2f(x->d); m = -8 * d; qs = x->qs; break; }
        case T_Q4_1: { const blk_q4_1 *x = (const blk_q4_1 *)row + b; d = h2f(x->d); m = h2f(x->m); qs = x->qs; break; }
        case T_Q5_0: { const blk_q5_0 *x = (const blk_q5_0 *)row + b; d = h2f(x->d); m = -16 * d; qs = x->qs; qh = x->qh; break; }
        default:     { const blk_q5_1 *x = (const blk_q5_1 *)row + b; d = h2f(x->d); m = h2f(x->m); qs = x->qs; qh = x->qh; break; }
        }
        uint32_t bits = 0;
        if (qh) memcpy(&bits, qh, 4);
        uint8_t *o = u + b * QK;
        for (int j = 0; j < 16; j++) {
            o[j] = (uint8_t)((qs[j] & 0x0F) | (((bits >> j) & 1) << 4));
            o[j + 16] = (uint8_t)((qs[j] >> 4) | (((bits >> (j + 16)) & 1) << 4));
        }
        put_group(scale8, mins, 2 * b, d, m);
        put_group(scale8, mins, 2 * b + 1, d, m);
    }
}

static void decode_kquant(int32_t t, const void *row, int64_t cols, uint8_t *u, float *scale8, float *mins) {
    for (int64_t b = 0; b < cols / QK_K; b++) {
        uint8_t *o = u + b * QK_K;
        int64_t g0 = b * 16;
        switch (t) {
        case T_Q2_K: {
            const blk_q2_K *x = (const blk_q2_K *)row + b;
            float d = h2f(x->d), dmin = h2f(x->dmin);
            for (int e = 0; e < 256; e++) o[e] = (x->qs[(e / 128) * 32 + e % 32] >> (2 * ((e % 128) / 32))) & 3;
            for (int g = 0; g < 16; g++) put_group(scale8, mins, g0 + g, d * (float)(x->scales[g] & 0x0F), -dmin * (float)(x->scales[g] >> 4));
            break;
        }
        case T_Q3_K: {
            const blk_q3_K *x = (const blk_q3_K *)row + b;
            float d = h2f(x->d);
            int sc[16];
            q3k_scales(x->scales, sc);
            for (int e = 0; e < 256; e++) {
                int half = e / 128, j = (e % 128) / 32, l = e % 32;
                int lo = (x->qs[half * 32 + l] >> (2 * j)) & 3, hb = (x->hmask[l] >> (half * 4 + j)) & 1;
                o[e] = (uint8_t)(lo | hb << 2);
            }
            for (int g = 0; g < 16; g++) put_group(scale8, mins, g0 + g, d * (float)sc[g], -4 * d * (float)sc[g]);
            break;
        }
        case T_Q4_K: case T_Q5_K: {
            const blk_q4_K *x4 = (const blk_q4_K *)row + b;
            const blk_q5_K *x5 = (const blk_q5_K *)row + b;
            int five = t == T_Q5_K;
            const uint8_t *qs = five ? x5->qs : x4->qs, *sp = five ? x5->scales : x4->scales;
            float d = h2f(five ? x5->d : x4->d), dmin = h2f(five ? x5->dmin : x4->dmin);
            for (int c = 0; c < 4; c++) {
                for (int l = 0; l < 32; l++) {
                    int h0 = five ? ((x5->qh[l] >> (2 * c)) & 1) << 4 : 0;
                    int h1 = five ? ((x5->qh[l] >> (2 * c + 1)) & 1) << 4 : 0;
                    o[c * 64 + l] = (uint8_t)((qs[c * 32 + l] & 0x0F) | h0);
                    o[c * 64 + 32 + l] = (uint8_t)((qs[c * 32 + l] >> 4) | h1);
                }
            }
            for (int j = 0; j < 8; j++) {
                int sc, mn;
                kquant_scale_min(j, sp, &sc, &mn);
                put_group(scale8, mins, g0 + 2 * j, d * (float)sc, -dmin * (float)mn);
                put_group(scale8, mins, g0 + 2 * j + 1, d * (float)sc, -dmin * (float)mn);
            }
            break;
        }
        default: {
            const blk_q6_K *x = (const blk_q6_K *)row + b;
            float d = h2f(x->d);
            for (int half = 0; half < 2; half++) {
                const uint8_t *ql = x->ql + 64 * half, *qh = x->qh + 32 * half;
                uint8_t *q = o + 128 * half;
                for (int l = 0; l < 32; l++) {
                    q[l] = (uint8_t)((ql[l] & 0x0F) | ((qh[l] & 3) << 4));
                    q[l + 32] = (uint8_t)((ql[l + 32] & 0x0F) | (((qh[l] >> 2) & 3) << 4));
                    q[l + 64] = (uint8_t)((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4));
                    q[l + 96] = (uint8_t)((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4));
                }
            }
            for (int g = 0; g < 16; g++) put_group(scale8, mins, g0 + g, d * (float)x->scales[g], -32 * d * (float)x->scales[g]);
            break;
        }
        }
    }
}

void odk_gemm_decode_row(int32_t t, const void *row, int64_t cols, uint8_t *u, float *scale8, float *mins) {
    if (t == T_Q4_0 || t == T_Q4_1 || t == T_Q5_0 || t == T_Q5_1) decode_legacy(t, row, cols, u, scale8, mins);
    else decode_kquant(t, row, cols, u, scale8, mins);
}
