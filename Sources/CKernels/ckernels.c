// Half-float conversion, activation quantization, kernel dispatch and the matmul row loop.
#include <math.h>
#include "batch.h"

float odk_fp16_to_fp32(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000) << 16;
    uint32_t exp = (h >> 10) & 0x1F, man = h & 0x3FF;
    uint32_t bits;
    if (exp == 0) {
        // Zero or subnormal: man * 2^-24 is exact in float.
        float f = (float)man * 5.9604644775390625e-8f;
        memcpy(&bits, &f, 4);
        bits |= sign;
    } else if (exp == 31) {
        bits = sign | 0x7F800000u | (man << 13);
    } else {
        bits = sign | ((exp + 112) << 23) | (man << 13);
    }
    float out;
    memcpy(&out, &bits, 4);
    return out;
}

uint16_t odk_fp32_to_fp16(float f) {
    uint32_t x;
    memcpy(&x, &f, 4);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000);
    uint32_t ax = x & 0x7FFFFFFFu;
    if (ax >= 0x7F800000u) return sign | 0x7C00 | (ax > 0x7F800000u ? 0x200 : 0);
    if (ax >= 0x47800000u) return sign | 0x7C00;  // >= 65536 overflows to infinity
    if (ax < 0x38800000u) {
        // Below the smallest normal half: count units of 2^-24, rounding to nearest even
        // (the multiply by 2^24 is exact; 1024 units carries into the smallest normal).
        float v;
        memcpy(&v, &ax, 4);
        return sign | (uint16_t)nearbyintf(v * 16777216.0f);
    }
    uint32_t h = ((((ax >> 23) - 112) << 10) | ((ax & 0x7FFFFFu) >> 13));
    uint32_t rem = ax & 0x1FFFu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1))) h++;  // a carry correctly bumps the exponent
    return sign | (uint16_t)h;
}

// Activation quantizers. The rounding matches ggml's x86 path for Q8_0/Q8_1 (x * 127/amax,
// round half to even) and its reference for Q8_K (scale by -127/max of the signed extreme).

static void quantize_q8_0_scalar(const float *x, void *dst, int64_t k) {
    blk_q8_0 *y = dst;
    for (int64_t i = 0; i < k / QK; i++, x += QK) {
        float amax = 0;
        for (int j = 0; j < QK; j++) amax = fmaxf(amax, fabsf(x[j]));
        float id = amax != 0 ? 127.0f / amax : 0.0f;
        y[i].d = odk_fp32_to_fp16(amax / 127.0f);
        for (int j = 0; j < QK; j++) y[i].qs[j] = (int8_t)nearbyintf(x[j] * id);
    }
}

static void quantize_q8_1_scalar(const float *x, void *dst, int64_t k) {
    blk_q8_1 *y = dst;
    for (int64_t i = 0; i < k / QK; i++, x += QK) {
        float amax = 0;
        for (int j = 0; j < QK; j++) amax = fmaxf(amax, fabsf(x[j]));
        float d = amax / 127.0f;
        float id = amax != 0 ? 127.0f / amax : 0.0f;
        int sum = 0;
        for (int j = 0; j < QK; j++) {
            int q = (int)nearbyintf(x[j] * id);
            y[i].qs[j] = (int8_t)q;
            sum += q;
        }
        y[i].d = odk_fp32_to_fp16(d);
        y[i].s = odk_fp32_to_fp16(d * (float)sum);
    }
}

static void quantize_q8_K_scalar(const float *x, void *dst, int64_t k) {
    blk_q8_K *y = dst;
    for (int64_t i = 0; i < k / QK_K; i++, x += QK_K) {
        float amax = 0, max = 0;
        for (int j = 0; j < QK_K; j++) {
            float ax = fabsf(x[j]);
            if (ax > amax) { amax = ax; max = x[j]; }
        }
        if (amax == 0) {
            memset(&y[i], 0, sizeof(blk_q8_K));
            continue;
        }
        float iscale = -127.0f / max;
        for (int j = 0; j < QK_K; j++) {
            int v = (int)nearbyintf(iscale * x[j]);
            y[i].qs[j] = (int8_t)(v > 127 ? 127 : v);
        }
        for (int g = 0; g < QK_K / 16; g++) {
            int sum = 0;
            for (int j = 0; j < 16; j++) sum += y[i].qs[g * 16 + j];
            y[i].bsums[g] = (int16_t)sum;
        }
        y[i].d = 1.0f / iscale;
    }
}

int32_t odk_activation_type(int32_t t) {
    switch (t) {
    case T_F32: case T_F16: case T_BF16: return T_F32;
    case T_Q4_0: case T_Q5_0: case T_Q8_0: return T_Q8_0;
    case T_Q4_1: case T_Q5_1: return T_Q8_1;
    case T_Q2_K: case T_Q3_K: case T_Q4_K: case T_Q5_K: case T_Q6_K: return T_Q8_K;
    default: return -1;
    }
}

size_t odk_activation_row_bytes(int32_t t, int64_t cols) {
    switch (odk_activation_type(t)) {
    case T_F32: return (size_t)cols * sizeof(float);
    case T_Q8_0: return (size_t)(cols / QK) * sizeof(blk_q8_0);
    case T_Q8_1: return (size_t)(cols / QK) * sizeof(blk_q8_1);
    case T_Q8_K: return (size_t)(cols / QK_K) * sizeof(blk_q8_K);
    default: return 0;
    }
}

#if defined(__x86_64__) || defined(__i386__)
void odk_quantize_q8_0_avx2(const float *x, void *dst, int64_t k);
void odk_quantize_q8_1_avx2(const float *x, void *dst, int64_t k);
void odk_quantize_q8_K_avx2(const float *x, void *dst, int64_t k);
#define QUANTIZER(fmt) (odk_has_avx2() ? odk_quantize_##fmt##_avx2 : quantize_##fmt##_scalar)
#elif defined(__aarch64__)
#define QUANTIZER(fmt) (odk_tier() >= ODK_TIER_NEON ? odk_quantize_##fmt##_neon : quantize_##fmt##_scalar)
#else
#define QUANTIZER(fmt) quantize_##fmt##_scalar
#endif

void odk_quantize_q8_0(const float *x, void *dst, int64_t k) { QUANTIZER(q8_0)(x, dst, k); }

void odk_quantize_q8_1(const float *x, void *dst, int64_t k) { QUANTIZER(q8_1)(x, dst, k); }

void odk_quantize_q8_K(const float *x, void *dst, int64_t k) { QUANTIZER(q8_K)(x, dst, k); }

static void quantize(int32_t t, const float *x, void *dst, int64_t cols, int scalar) {
    switch (odk_activation_type(t)) {
    case T_F32: memcpy(dst, x, (size_t)cols * sizeof(float)); break;
    case T_Q8_0: (scalar ? quantize_q8_0_scalar : odk_quantize_q8_0)(x, dst, cols); break;
    case T_Q8_1: (scalar ? quantize_q8_1_scalar : odk_quantize_q8_1)(x, dst, cols); break;
    case T_Q8_K: (scalar ? quantize_q8_K_scalar : odk_quantize_q8_K)(x, dst, cols); break;
    default: break;
    }
}

void odk_quantize_activations(int32_t t, const float *x, void *dst, int64_t cols) {
    quantize(t, x, dst, cols, 0);
}

void odk_quantize_activations_scalar(int32_t t, const float *x, void *dst, int64_t cols) {
    quantize(t, x, dst, cols, 1);
}

/// The kernel of the tier in use (see tier.c), or the scalar one where that tier has none.
static odk_dot_fn best_kernel(int32_t t) {
    int tier = odk_tier();
    // The avx512 tier's one-row kernels are AVX2's; its four-row ones (dot4_avx512.c) and its
    // GEMM are its own.
    odk_dot_fn fn = tier == ODK_TIER_AVX2 || tier == ODK_TIER_AVX512 ? odk_avx2_kernel(t)
                  : tier >= ODK_TIER_NEON ? odk_neon_kernel(t, tier) : NULL;
    return fn ? fn : odk_scalar_kernel(t);
}

float odk_vec_dot(int32_t t, int64_t cols, const void *w, const void *act) {
    odk_dot_fn fn = best_kernel(t);
    return fn ? fn(cols, w, act) : 0.0f;
}

float odk_vec_dot_scalar(int32_t t, int64_t cols, const void *w, const void *act) {
    odk_dot_fn fn = odk_scalar_kernel(t);
    return fn ? fn(cols, w, act) : 0.0f;
}

void odk_matmul_rows(int32_t t, int64_t cols, const void *w, size_t w_row_bytes,
                     int64_t row_begin, int64_t row_end,
                     const void *act, size_t act_row_bytes, int64_t n_tokens,
                     float *out, int64_t out_stride) {
    odk_dot_fn fn = best_kernel(t);
    if (!fn) return;
    // Four or more tokens (a batched decode step) on x86: the batched kernels, which add each
    // weight group to eight tokens at once (dot_batch.h), over this thread's panel.
    size_t panel_bytes = odk_batch_panel_bytes(t, cols, n_tokens);
    batch_block *panel = panel_bytes ? odk_batch_panel((int64_t)(panel_bytes / sizeof(batch_block))) : NULL;
    if (panel) {
        odk_batch_fill_panel(t, cols, act, act_row_bytes, n_tokens, panel);
        odk_batch_rows(t, cols, w, w_row_bytes, row_begin, row_end, panel, n_tokens, out, out_stride);
        return;
    }
    int tier = odk_tier();
    odk_dot4_fn fn4 = tier == ODK_TIER_AVX512 ? odk_avx512_kernel4(t) : tier == ODK_TIER_AVX2 ? odk_avx2_kernel4(t) : NULL;
    // Q8_0 matvec is memory-bound, and one prefetching row stream beat four interleaved ones
    // on the 178 MB Gemma head (~9.3 vs ~7.0 GB/s); the compute-heavier formats keep four rows.
    if (t == T_Q8_0 && n_tokens == 1) fn4 = NULL;
    // With SMMLA, pairs of rows meet pairs of tokens (odk_i8mm_kernel2x2); NULL elsewhere.
    odk_dot2x2_fn fn2 = n_tokens > 1 && tier >= ODK_TIER_I8MM ? odk_i8mm_kernel2x2(t) : NULL;
    // On x86, four rows by two tokens (NULL on other architectures and for other formats).
    odk_dot4x2_fn fn42 = n_tokens < 2 || !fn4 ? NULL
                       : tier == ODK_TIER_AVX512 ? odk_avx512_kernel4x2(t) : odk_avx2_kernel4x2(t);
    const char *wp = w;
    const char *ap = act;
    // About 16 KiB of weight rows per block stays in L1 while every token passes over it; a
    // multiple of 4 rows so blocks split into whole four-row groups like the matvec path does.
    int64_t block = row_end - row_begin;  // one pass for a single token
    if (n_tokens > 1) {
        block = (int64_t)(16384 / (w_row_bytes ? w_row_bytes : 1));
        block = block < 4 ? 4 : block > 64 ? 64 : block & ~(int64_t)3;
    }
    for (int64_t rb = row_begin; rb < row_end; rb += block) {
        int64_t re = rb + block < row_end ? rb + block : row_end;
        int64_t tk = 0;
        if (fn2) {
            for (; tk + 2 <= n_tokens; tk += 2) {
                const char *a = ap + tk * act_row_bytes;
                float *o0 = out + tk * out_stride, *o1 = o0 + out_stride;
                int64_t r = rb;
                for (; r + 2 <= re; r += 2) {
                    float v[4];
                    fn2(cols, wp + r * w_row_bytes, w_row_bytes, a, act_row_bytes, v);
                    o0[r] = v[0], o1[r] = v[1], o0[r + 1] = v[2], o1[r + 1] = v[3];
                }
                for (; r < re; r++) {
                    o0[r] = fn(cols, wp + r * w_row_bytes, a);
                    o1[r] = fn(cols, wp + r * w_row_bytes, a + act_row_bytes);
                }
            }
        }
        if (fn42) {
            // Pairs of tokens share each unpacked weight block (a batched decode step).
            for (; tk + 2 <= n_tokens; tk += 2) {
                const char *a = ap + tk * act_row_bytes;
                float *o0 = out + tk * out_stride, *o1 = o0 + out_stride;
                int64_t r = rb;
                for (; r + 4 <= re; r += 4) fn42(cols, wp + r * w_row_bytes, w_row_bytes, a, act_row_bytes, o0 + r, o1 + r);
                for (; r < re; r++) {
                    o0[r] = fn(cols, wp + r * w_row_bytes, a);
                    o1[r] = fn(cols, wp + r * w_row_bytes, a + act_row_bytes);
                }
            }
        }
        for (; tk < n_tokens; tk++) {
            const void *a = ap + tk * act_row_bytes;
            float *o = out + tk * out_stride;
            int64_t r = rb;
            if (fn4)
                for (; r + 4 <= re; r += 4) fn4(cols, wp + r * w_row_bytes, w_row_bytes, a, o + r);
            for (; r < re; r++) o[r] = fn(cols, wp + r * w_row_bytes, a);
        }
    }
}

int odk_decode_step_gemm_tokens(int32_t t) {
    // Measured with both kernels on one weight matrix (Q4_0 576x1536, Q5_0 896x4864, Q8_0
    // 576x4096, Q4_1 both ways; 4 to 512 tokens, one thread, Zen 4). The batched kernels cost
    // about the same for 1 to 8 tokens and grow in steps of 8; the GEMM grows smoothly.
    int tier = odk_tier();
    // Q4_1 and Q5_1, whose GEMM tiles are decoded by scalar code on both x86 tiers: the batched
    // kernel took 0.42-0.60x the GEMM's time from 32 to 512 tokens on AVX-512, 0.59-0.76x on AVX2.
    if ((tier == ODK_TIER_AVX512 || tier == ODK_TIER_AVX2) && (t == T_Q4_1 || t == T_Q5_1)) return INT32_MAX;
    if (tier == ODK_TIER_AVX512) {
        // With the in-lane group broadcast (dot_batch.h HALVES): batched against GEMM time.
        switch (t) {
        case T_Q8_0: return 129;              // 0.50x at 8, 0.78x at 32, 0.92x at 128, 0.95x at 256
        case T_Q4_0: return 129;              // 0.49x at 8, 0.77x at 32, 0.90x at 128, 0.93x at 256
        case T_Q5_0: return 9;                // 1.00x at 4, 0.78-0.82x at 8, 1.28-1.39x at 10-12
        default: break;                       // K-quants: no batched kernel
        }
        return odk_gemm_decodes_fast(t) ? 4 : 24;
    }
    if (tier == ODK_TIER_AVX2) {
        switch (t) {
        case T_Q4_0: case T_Q5_0: case T_Q8_0:
            return 65;  // every tile decoded by scalar code: batched 0.63-0.83x the GEMM at 48
        default: break;
        }
    }
    return 24;  // the matrix-vector kernels per token against scalar tile decoding, 2 threads
}
