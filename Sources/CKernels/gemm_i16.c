// 16-bit integer encoder GEMM (see od_gemm_i16.h for the scheme and both packed layouts).
//
// The AVX2 kernel computes a 6-token x 16-row tile: per pair of k, two weight loads (8 rows x 2
// values each), six 32-bit broadcasts of a token's two values, twelve vpmaddwd (each 16
// multiply-adds into 8 row sums) and twelve 32-bit adds into register accumulators. Integer sums
// are exact, so any order gives the same result and the scalar twin is bit-identical.
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "od_gemm_i16.h"
#include "od_kernels.h"

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>
#define OD_I16_X86 1
#endif

enum { W_PANEL_ROWS = 16, T_PANEL_TOKENS = 6, TOKEN_PANEL_BLOCK = 24, CHUNK_PAIRS = 128 };

size_t od_i16_weight_elements(int64_t rows, int64_t k) {
    return (size_t)((rows + W_PANEL_ROWS - 1) / W_PANEL_ROWS) * (size_t)k * W_PANEL_ROWS;
}

size_t od_i16_token_elements(int64_t n_tokens, int64_t k) {
    return (size_t)((n_tokens + T_PANEL_TOKENS - 1) / T_PANEL_TOKENS) * (size_t)k * T_PANEL_TOKENS;
}

/// max |v[i]| over n floats; infinity if any is NaN (callers zero such rows, as infinite ones).
static float max_abs_scalar(const float *v, int64_t n) {
    float m = 0;
    for (int64_t i = 0; i < n; i++) {
        float a = fabsf(v[i]);
        if (a > m || a != a) m = a != a ? INFINITY : a;
    }
    return m;
}

/// q[i] = lrintf(v[i] * inverse) for n values (|v[i] * inverse| <= levels by construction).
static void round_scalar(const float *v, int64_t n, float inverse, int16_t *q) {
    for (int64_t i = 0; i < n; i++) q[i] = (int16_t)lrintf(v[i] * inverse);
}

/// Symmetric quantization of n values to [-levels, levels]: returns the step (0 for an
/// all-zero or non-finite row, whose values all quantize to 0).
static float quantize_row(const float *v, int64_t n, int32_t levels, int16_t *q) {
    float max_abs = max_abs_scalar(v, n);
    if (!(max_abs > 0) || !isfinite(max_abs)) {
        for (int64_t i = 0; i < n; i++) q[i] = 0;
        return 0;
    }
    round_scalar(v, n, (float)levels / max_abs, q);
    return max_abs / (float)levels;
}

/// Row r of a weight as floats.
static void load_row(int32_t w_type, const void *w, size_t w_row_bytes, int64_t r, int64_t k, float *row) {
    const char *src = (const char *)w + (size_t)r * w_row_bytes;
    for (int64_t i = 0; i < k; i++)
        row[i] = w_type == 0 ? ((const float *)src)[i] : odk_fp16_to_fp32(((const uint16_t *)src)[i]);
}

int32_t od_i16_pack_weights(int32_t w_type, int64_t rows, int64_t k, const void *w, size_t w_row_bytes,
                            int16_t *panels, float *row_scales) {
    if ((w_type != 0 && w_type != 1) || k <= 0 || k % 2 != 0 || rows <= 0) return 0;
    float *row = malloc((size_t)k * sizeof(float));
    int16_t *q = malloc((size_t)k * sizeof(int16_t));
    if (!row || !q) { free(row); free(q); return 0; }
    // The widest row in the L1 sense: spread = sum |w| / max |w| (at most k; about k / 4 for
    // bell-shaped rows). With L levels for both operands a row's |sum| is at most
    // L * (L * spread + k / 2), the k / 2 for rounding up; the largest L keeping that in 32 bits.
    double spread = 1;
    for (int64_t r = 0; r < rows; r++) {
        load_row(w_type, w, w_row_bytes, r, k, row);
        double sum = 0, max = 0;
        for (int64_t i = 0; i < k; i++) {
            double a = fabs((double)row[i]);
            sum += a;
            if (a > max) max = a;
        }
        if (max > 0 && sum / max > spread) spread = sum / max;
    }
    double half_k = (double)k / 2, limit = (double)INT32_MAX;
    double levels = floor((-half_k + sqrt(half_k * half_k + 4 * spread * limit)) / (2 * spread));
    int32_t w_levels = levels > 32767 ? 32767 : levels < 1 ? 1 : (int32_t)levels;
    int64_t widest = 1;  // the largest sum |q| over the quantized rows
    int64_t n_panels = (rows + W_PANEL_ROWS - 1) / W_PANEL_ROWS;
    for (int64_t p = 0; p < n_panels; p++) {
        int16_t *panel = panels + (size_t)p * (size_t)k * W_PANEL_ROWS;
        for (int64_t j = 0; j < W_PANEL_ROWS; j++) {
            int64_t r = p * W_PANEL_ROWS + j;
            if (r < rows) {
                load_row(w_type, w, w_row_bytes, r, k, row);
                row_scales[r] = quantize_row(row, k, w_levels, q);
                int64_t l1 = 0;
                for (int64_t i = 0; i < k; i++) l1 += q[i] < 0 ? -q[i] : q[i];
                if (l1 > widest) widest = l1;
            } else {
                for (int64_t i = 0; i < k; i++) q[i] = 0;
            }
            // Pair kp of row j: elements kp * 32 + (j / 8) * 16 + (j % 8) * 2 + {0, 1}.
            int16_t *dst = panel + (j / 8) * 16 + (j % 8) * 2;
            for (int64_t kp = 0; kp < k / 2; kp++) {
                dst[kp * 32] = q[2 * kp];
                dst[kp * 32 + 1] = q[2 * kp + 1];
            }
        }
    }
    free(row);
    free(q);
    // Exact now: activations at most a_levels in magnitude keep every sum within 32 bits.
    int64_t a_levels = INT32_MAX / widest;
    return a_levels > 32767 ? 32767 : (int32_t)a_levels;
}

#ifdef OD_I16_X86
// The same two loops with AVX2: the maximum is order-independent and vcvtps2dq rounds to nearest
// even, as lrintf does in the default rounding mode, so the results are identical.
__attribute__((target("avx2,fma")))
static float max_abs_avx2(const float *v, int64_t n) {
    const __m256 sign = _mm256_set1_ps(-0.0f);
    __m256 m = _mm256_setzero_ps(), bad = _mm256_setzero_ps();
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 a = _mm256_andnot_ps(sign, _mm256_loadu_ps(v + i));
        bad = _mm256_or_ps(bad, _mm256_cmp_ps(a, a, _CMP_UNORD_Q));
        m = _mm256_max_ps(m, a);
    }
    float lanes[8];
    _mm256_storeu_ps(lanes, m);
    float r = max_abs_scalar(v + i, n - i);
    for (int j = 0; j < 8; j++) if (lanes[j] > r) r = lanes[j];
    return _mm256_movemask_ps(bad) ? INFINITY : r;
}

__attribute__((target("avx2,fma")))
static void round_avx2(const float *v, int64_t n, float inverse, int16_t *q) {
    const __m256 s = _mm256_set1_ps(inverse);
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m256i a = _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_loadu_ps(v + i), s));
        __m256i b = _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_loadu_ps(v + i + 8), s));
        // packs works within 128-bit lanes: a0-3 b0-3 a4-7 b4-7; the permute restores order.
        _mm256_storeu_si256((__m256i *)(q + i), _mm256_permute4x64_epi64(_mm256_packs_epi32(a, b), 0xD8));
    }
    round_scalar(v + i, n - i, inverse, q + i);
}
#endif

void od_i16_pack_tokens(int64_t n_tokens, int64_t k, int32_t levels, const float *x, int64_t x_stride,
                        int16_t *panels, float *token_scales) {
    int64_t n_panels = (n_tokens + T_PANEL_TOKENS - 1) / T_PANEL_TOKENS;
    int simd = 0;
#ifdef OD_I16_X86
    simd = odk_has_avx2();
#endif
    (void)simd;  // read only by the x86 paths
    for (int64_t p = 0; p < n_panels; p++) {
        // Token i's pair kp: elements (kp * 6 + i) * 2 and + 1 of its panel.
        int16_t *panel = panels + (size_t)p * (size_t)k * T_PANEL_TOKENS;
        for (int64_t i = 0; i < T_PANEL_TOKENS; i++) {
            int64_t t = p * T_PANEL_TOKENS + i;
            // Padding tokens past the batch have no row (and no pointer into one).
            const float *v = t < n_tokens ? x + t * x_stride : x;
            float max_abs = 0;
            if (t < n_tokens) {
#ifdef OD_I16_X86
                max_abs = simd ? max_abs_avx2(v, k) : max_abs_scalar(v, k);
#else
                max_abs = max_abs_scalar(v, k);
#endif
            }
            if (!(max_abs > 0) || !isfinite(max_abs)) {
                // Padding tokens, zero rows, and rows that are not finite contribute nothing.
                for (int64_t kp = 0; kp < k / 2; kp++) panel[(kp * 6 + i) * 2] = panel[(kp * 6 + i) * 2 + 1] = 0;
                if (t < n_tokens) token_scales[t] = 0;
                continue;
            }
            float inverse = (float)levels / max_abs;
            // Rounded in chunks on the stack, then each pair stored as one 32-bit word.
            int16_t chunk[2 * CHUNK_PAIRS];
            for (int64_t c0 = 0; c0 < k; c0 += 2 * CHUNK_PAIRS) {
                int64_t len = k - c0 < 2 * CHUNK_PAIRS ? k - c0 : 2 * CHUNK_PAIRS;
#ifdef OD_I16_X86
                if (simd) round_avx2(v + c0, len, inverse, chunk); else round_scalar(v + c0, len, inverse, chunk);
#else
                round_scalar(v + c0, len, inverse, chunk);
#endif
                for (int64_t j = 0; j < len / 2; j++) memcpy(panel + ((c0 / 2 + j) * 6 + i) * 2, chunk + 2 * j, 4);
            }
            token_scales[t] = max_abs / (float)levels;
        }
    }
}

/// The store of one tile row: acc * (row scale * token scale) (+ bias), one fused multiply-add.
static inline float dequantize(int32_t acc, float row_scale, float token_scale, float bias) {
    return fmaf((float)acc, row_scale * token_scale, bias);
}

void od_gemm_i16_scalar(int64_t k, int64_t rows, const int16_t *w_panels, const float *row_scales,
                        int64_t panel_begin, int64_t panel_end, const int16_t *t_panels, const float *token_scales,
                        int64_t n_tokens, const float *bias, float *out, int64_t out_stride) {
    for (int64_t p = panel_begin; p < panel_end; p++) {
        const int16_t *panel = w_panels + (size_t)p * (size_t)k * W_PANEL_ROWS;
        for (int64_t j = 0; j < W_PANEL_ROWS && p * W_PANEL_ROWS + j < rows; j++) {
            int64_t r = p * W_PANEL_ROWS + j;
            const int16_t *wr = panel + (j / 8) * 16 + (j % 8) * 2;
            for (int64_t t = 0; t < n_tokens; t++) {
                const int16_t *xt = t_panels + (size_t)(t / T_PANEL_TOKENS) * (size_t)k * T_PANEL_TOKENS + (t % T_PANEL_TOKENS) * 2;
                int32_t acc = 0;
                for (int64_t kp = 0; kp < k / 2; kp++)
                    acc += (int32_t)wr[kp * 32] * xt[kp * 12] + (int32_t)wr[kp * 32 + 1] * xt[kp * 12 + 1];
                out[t * out_stride + r] = dequantize(acc, row_scales[r], token_scales[t], bias ? bias[r] : 0);
            }
        }
    }
}

#ifdef OD_I16_X86
#define I16_FN static inline __attribute__((target("avx2,fma"), always_inline))

/// Converts one 8-row accumulator and stores `count` of its rows: the same rounding as
/// `dequantize` (product of the scales first, then one FMA).
I16_FN void store8(__m256i acc, const float *row_scales, float token_scale, const float *bias, float *o, int64_t count) {
    if (count == 8) {
        __m256 scale = _mm256_mul_ps(_mm256_loadu_ps(row_scales), _mm256_set1_ps(token_scale));
        __m256 b = bias ? _mm256_loadu_ps(bias) : _mm256_setzero_ps();
        _mm256_storeu_ps(o, _mm256_fmadd_ps(_mm256_cvtepi32_ps(acc), scale, b));
        return;
    }
    int32_t a[8];
    _mm256_storeu_si256((__m256i *)a, acc);
    for (int64_t j = 0; j < count; j++) o[j] = dequantize(a[j], row_scales[j], token_scale, bias ? bias[j] : 0);
}

/// A token's two values at p as one 32-bit word (memcpy: no aliasing of int16 storage).
I16_FN int32_t pair_at(const int16_t *p) {
    int32_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

/// 6 packed tokens x 16 packed rows over k / 2 pairs; writes nt tokens and `valid` rows.
I16_FN void micro_6x16(int64_t pairs, const int16_t *tp, const int16_t *wp, const float *row_scales,
                       const float *token_scales, const float *bias, float *out, int64_t out_stride, int64_t nt,
                       int64_t valid) {
    __m256i c00 = _mm256_setzero_si256(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00;
    __m256i c30 = c00, c31 = c00, c40 = c00, c41 = c00, c50 = c00, c51 = c00;
    for (int64_t kp = 0; kp < pairs; kp++, tp += 12, wp += 32) {
        __m256i w0 = _mm256_load_si256((const __m256i *)wp), w1 = _mm256_load_si256((const __m256i *)(wp + 16)), a;
        a = _mm256_set1_epi32(pair_at(tp + 0));
        c00 = _mm256_add_epi32(c00, _mm256_madd_epi16(a, w0)); c01 = _mm256_add_epi32(c01, _mm256_madd_epi16(a, w1));
        a = _mm256_set1_epi32(pair_at(tp + 2));
        c10 = _mm256_add_epi32(c10, _mm256_madd_epi16(a, w0)); c11 = _mm256_add_epi32(c11, _mm256_madd_epi16(a, w1));
        a = _mm256_set1_epi32(pair_at(tp + 4));
        c20 = _mm256_add_epi32(c20, _mm256_madd_epi16(a, w0)); c21 = _mm256_add_epi32(c21, _mm256_madd_epi16(a, w1));
        a = _mm256_set1_epi32(pair_at(tp + 6));
        c30 = _mm256_add_epi32(c30, _mm256_madd_epi16(a, w0)); c31 = _mm256_add_epi32(c31, _mm256_madd_epi16(a, w1));
        a = _mm256_set1_epi32(pair_at(tp + 8));
        c40 = _mm256_add_epi32(c40, _mm256_madd_epi16(a, w0)); c41 = _mm256_add_epi32(c41, _mm256_madd_epi16(a, w1));
        a = _mm256_set1_epi32(pair_at(tp + 10));
        c50 = _mm256_add_epi32(c50, _mm256_madd_epi16(a, w0)); c51 = _mm256_add_epi32(c51, _mm256_madd_epi16(a, w1));
    }
    __m256i acc[6][2] = {{c00, c01}, {c10, c11}, {c20, c21}, {c30, c31}, {c40, c41}, {c50, c51}};
    int64_t lo = valid < 8 ? valid : 8, hi = valid - lo;
    for (int64_t i = 0; i < nt; i++) {
        float *o = out + i * out_stride;
        store8(acc[i][0], row_scales, token_scales[i], bias, o, lo);
        if (hi > 0) store8(acc[i][1], row_scales + 8, token_scales[i], bias ? bias + 8 : NULL, o + 8, hi);
    }
}

__attribute__((target("avx2,fma")))
static void gemm_i16_avx2(int64_t k, int64_t rows, const int16_t *w_panels, const float *row_scales,
                          int64_t panel_begin, int64_t panel_end, const int16_t *t_panels, const float *token_scales,
                          int64_t n_tokens, const float *bias, float *out, int64_t out_stride) {
    int64_t n_tpanels = (n_tokens + T_PANEL_TOKENS - 1) / T_PANEL_TOKENS;
    size_t w_panel = (size_t)k * W_PANEL_ROWS, t_panel = (size_t)k * T_PANEL_TOKENS;
    // A block of token panels stays in cache while every weight panel of the range passes.
    for (int64_t q0 = 0; q0 < n_tpanels; q0 += TOKEN_PANEL_BLOCK) {
        int64_t q1 = q0 + TOKEN_PANEL_BLOCK < n_tpanels ? q0 + TOKEN_PANEL_BLOCK : n_tpanels;
        for (int64_t p = panel_begin; p < panel_end; p++) {
            int64_t r0 = p * W_PANEL_ROWS, valid = rows - r0 < W_PANEL_ROWS ? rows - r0 : W_PANEL_ROWS;
            for (int64_t q = q0; q < q1; q++) {
                int64_t t0 = q * T_PANEL_TOKENS, nt = n_tokens - t0 < T_PANEL_TOKENS ? n_tokens - t0 : T_PANEL_TOKENS;
                micro_6x16(k / 2, t_panels + (size_t)q * t_panel, w_panels + (size_t)p * w_panel, row_scales + r0,
                           token_scales + t0, bias ? bias + r0 : NULL, out + t0 * out_stride + r0, out_stride, nt, valid);
            }
        }
    }
}
#endif

void od_gemm_i16(int64_t k, int64_t rows, const int16_t *w_panels, const float *row_scales, int64_t panel_begin,
                 int64_t panel_end, const int16_t *t_panels, const float *token_scales, int64_t n_tokens,
                 const float *bias, float *out, int64_t out_stride) {
#ifdef OD_I16_X86
    if (odk_has_avx2()) {
        gemm_i16_avx2(k, rows, w_panels, row_scales, panel_begin, panel_end, t_panels, token_scales, n_tokens, bias,
                      out, out_stride);
        return;
    }
#endif
    od_gemm_i16_scalar(k, rows, w_panels, row_scales, panel_begin, panel_end, t_panels, token_scales, n_tokens, bias,
                       out, out_stride);
}
