// Register-blocked products of token rows with F32/F16 weight rows (see od_gemm.h).
//
// The weights keep their file layout (one contiguous row per output). With six or more tokens,
// each call packs its weight rows into k-major 16-row panels (F16 converted once) and the tokens
// into k-major 6-token panels, then runs a 6 x 16 outer-product kernel: per k two weight loads,
// six broadcasts from one pointer and 12 FMAs into 12 accumulators, no horizontal sums (the
// shape BLIS-style AVX2 kernels use). Token panels are walked in blocks that stay in cache while
// every weight panel passes. With fewer tokens a 4-token x 3-row dot-product tile (12
// accumulators, 7 loads per 12 FMAs, horizontal sums at the end) avoids the packing.
#include <stdlib.h>
#include <string.h>
#include "od_gemm_rows.h"
#include "od_kernels.h"

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>
#define OD_GEMM_X86 1
#endif

enum { ROW_BLOCK = 96, TOKEN_BLOCK = 64 };

static inline float weight_at(int32_t type, const void *row, int64_t k) {
    return type == 0 ? ((const float *)row)[k] : odk_fp16_to_fp32(((const uint16_t *)row)[k]);
}

int od_gemm_rows_scalar(int32_t w_type, int64_t cols, const void *w, size_t w_row_bytes,
                        int64_t row_begin, int64_t row_end, const float *x, int64_t n_tokens,
                        float *out, int64_t out_stride) {
    if (w_type != 0 && w_type != 1) return 0;
    const char *wp = w;
    for (int64_t t = 0; t < n_tokens; t++) {
        const float *xt = x + t * cols;
        for (int64_t r = row_begin; r < row_end; r++) {
            const void *row = wp + r * w_row_bytes;
            float s = 0;
            for (int64_t k = 0; k < cols; k++) s += weight_at(w_type, row, k) * xt[k];
            out[t * out_stride + r] = s;
        }
    }
    return 1;
}

#ifdef OD_GEMM_X86
#define GEMM_FN static inline __attribute__((target("avx2,fma,f16c"), always_inline))

GEMM_FN __m256 load_w(int32_t type, const void *row, int64_t k) {
    if (type == 0) return _mm256_loadu_ps((const float *)row + k);
    return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)((const uint16_t *)row + k)));
}

GEMM_FN float hsum(__m256 v) {
    __m128 a = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    a = _mm_add_ps(a, _mm_movehl_ps(a, a));
    a = _mm_add_ss(a, _mm_movehdup_ps(a));
    return _mm_cvtss_f32(a);
}

/// 4 tokens x 3 rows. cols is a multiple of 8.
GEMM_FN void tile_4x3(int32_t type, int64_t cols, const void *w0, const void *w1, const void *w2,
                      const float *x, float *o, int64_t out_stride) {
    __m256 a00 = _mm256_setzero_ps(), a01 = a00, a02 = a00, a10 = a00, a11 = a00, a12 = a00;
    __m256 a20 = a00, a21 = a00, a22 = a00, a30 = a00, a31 = a00, a32 = a00;
    const float *x0 = x, *x1 = x + cols, *x2 = x + 2 * cols, *x3 = x + 3 * cols;
    for (int64_t k = 0; k < cols; k += 8) {
        __m256 b0 = load_w(type, w0, k), b1 = load_w(type, w1, k), b2 = load_w(type, w2, k);
        __m256 v = _mm256_loadu_ps(x0 + k);
        a00 = _mm256_fmadd_ps(v, b0, a00); a01 = _mm256_fmadd_ps(v, b1, a01); a02 = _mm256_fmadd_ps(v, b2, a02);
        v = _mm256_loadu_ps(x1 + k);
        a10 = _mm256_fmadd_ps(v, b0, a10); a11 = _mm256_fmadd_ps(v, b1, a11); a12 = _mm256_fmadd_ps(v, b2, a12);
        v = _mm256_loadu_ps(x2 + k);
        a20 = _mm256_fmadd_ps(v, b0, a20); a21 = _mm256_fmadd_ps(v, b1, a21); a22 = _mm256_fmadd_ps(v, b2, a22);
        v = _mm256_loadu_ps(x3 + k);
        a30 = _mm256_fmadd_ps(v, b0, a30); a31 = _mm256_fmadd_ps(v, b1, a31); a32 = _mm256_fmadd_ps(v, b2, a32);
    }
    o[0] = hsum(a00); o[1] = hsum(a01); o[2] = hsum(a02);
    o += out_stride;
    o[0] = hsum(a10); o[1] = hsum(a11); o[2] = hsum(a12);
    o += out_stride;
    o[0] = hsum(a20); o[1] = hsum(a21); o[2] = hsum(a22);
    o += out_stride;
    o[0] = hsum(a30); o[1] = hsum(a31); o[2] = hsum(a32);
}

/// One token x one row (the tile edges).
GEMM_FN float dot_1x1(int32_t type, int64_t cols, const void *w, const float *x) {
    __m256 a = _mm256_setzero_ps(), b = _mm256_setzero_ps();
    int64_t k = 0;
    for (; k + 16 <= cols; k += 16) {
        a = _mm256_fmadd_ps(_mm256_loadu_ps(x + k), load_w(type, w, k), a);
        b = _mm256_fmadd_ps(_mm256_loadu_ps(x + k + 8), load_w(type, w, k + 8), b);
    }
    for (; k < cols; k += 8) a = _mm256_fmadd_ps(_mm256_loadu_ps(x + k), load_w(type, w, k), a);
    return hsum(_mm256_add_ps(a, b));
}

/// Packs weight rows [r0, r0 + 16) into a k-major panel: panel[k * 16 + j] = W[r0 + j][k]
/// (rows past `rows_end` are zeros), converting F16 to F32 once per call rather than per token.
__attribute__((target("avx2,fma,f16c")))
static void pack_panel(int32_t type, int64_t cols, const char *w, size_t w_row_bytes, int64_t r0, int64_t rows_end,
                       float *panel) {
    for (int64_t j = 0; j < 16; j++) {
        int64_t r = r0 + j;
        if (r >= rows_end) {
            for (int64_t k = 0; k < cols; k++) panel[k * 16 + j] = 0;
            continue;
        }
        const void *row = w + r * w_row_bytes;
        int64_t k = 0;
        if (type == 1) {
            for (; k + 8 <= cols; k += 8) {
                float tmp[8];
                _mm256_storeu_ps(tmp, load_w(1, row, k));
                for (int q = 0; q < 8; q++) panel[(k + q) * 16 + j] = tmp[q];
            }
        }
        for (; k < cols; k++) panel[k * 16 + j] = weight_at(type, row, k);
    }
}

/// Packs tokens [t0, t0 + 6) of x into a k-major micro-panel: xp[k * 6 + i] = x[t0 + i][k]
/// (tokens past `n_tokens` are zeros), so the kernel reads its six broadcasts from one pointer.
static void pack_tokens(int64_t cols, const float *x, int64_t t0, int64_t n_tokens, float *xp) {
    for (int64_t i = 0; i < 6; i++) {
        const float *row = x + (t0 + i) * cols;
        if (t0 + i >= n_tokens) {
            for (int64_t k = 0; k < cols; k++) xp[k * 6 + i] = 0;
        } else {
            for (int64_t k = 0; k < cols; k++) xp[k * 6 + i] = row[k];
        }
    }
}

/// 6 packed tokens x 16 packed rows: per k two weight loads, six broadcasts from one pointer and
/// 12 FMAs into 12 register accumulators; no horizontal sums. Each output is one in-order sum
/// over k. Writes the first `nt` tokens and `valid` rows.
GEMM_FN void micro_6x16(int64_t cols, const float *xp, const float *panel, float *out, int64_t out_stride,
                        int64_t nt, int64_t valid) {
    __m256 c00 = _mm256_setzero_ps(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00;
    __m256 c30 = c00, c31 = c00, c40 = c00, c41 = c00, c50 = c00, c51 = c00;
    for (int64_t k = 0; k < cols; k++, xp += 6, panel += 16) {
        __m256 w0 = _mm256_load_ps(panel), w1 = _mm256_load_ps(panel + 8), a;
        a = _mm256_broadcast_ss(xp + 0); c00 = _mm256_fmadd_ps(a, w0, c00); c01 = _mm256_fmadd_ps(a, w1, c01);
        a = _mm256_broadcast_ss(xp + 1); c10 = _mm256_fmadd_ps(a, w0, c10); c11 = _mm256_fmadd_ps(a, w1, c11);
        a = _mm256_broadcast_ss(xp + 2); c20 = _mm256_fmadd_ps(a, w0, c20); c21 = _mm256_fmadd_ps(a, w1, c21);
        a = _mm256_broadcast_ss(xp + 3); c30 = _mm256_fmadd_ps(a, w0, c30); c31 = _mm256_fmadd_ps(a, w1, c31);
        a = _mm256_broadcast_ss(xp + 4); c40 = _mm256_fmadd_ps(a, w0, c40); c41 = _mm256_fmadd_ps(a, w1, c41);
        a = _mm256_broadcast_ss(xp + 5); c50 = _mm256_fmadd_ps(a, w0, c50); c51 = _mm256_fmadd_ps(a, w1, c51);
    }
    __m256 acc[6][2] = {{c00, c01}, {c10, c11}, {c20, c21}, {c30, c31}, {c40, c41}, {c50, c51}};
    for (int64_t i = 0; i < nt; i++) {
        float *o = out + i * out_stride;
        if (valid == 16) {
            _mm256_storeu_ps(o, acc[i][0]);
            _mm256_storeu_ps(o + 8, acc[i][1]);
        } else {
            float tmp[16];
            _mm256_storeu_ps(tmp, acc[i][0]);
            _mm256_storeu_ps(tmp + 8, acc[i][1]);
            for (int64_t j = 0; j < valid; j++) o[j] = tmp[j];
        }
    }
}

// Token micro-panels per block: 24 x 6 tokens of x (at most 24 x 6 x 1536 x 4 B = 884 KiB for
// the widest encoder input, usually far less) stay in cache while every weight panel passes.
enum { TOKEN_PANELS = 24 };

__attribute__((target("avx2,fma,f16c")))
static int gemm_packed(int32_t type, int64_t cols, const char *w, size_t w_row_bytes, int64_t row_begin,
                       int64_t row_end, const float *x, int64_t n_tokens, float *out, int64_t out_stride) {
    // Both operands packed once per call: every 16-row weight panel (F16 converted once) and every
    // 6-token panel; the packing is 1/n_tokens and 1/rows of the multiply-adds.
    int64_t n_panels = (row_end - row_begin + 15) / 16, n_tpanels = (n_tokens + 5) / 6;
    size_t panel_floats = (size_t)(cols * 16), tpanel_floats = (size_t)(cols * 6);
    float *panels = aligned_alloc(64, ((size_t)n_panels * panel_floats * sizeof(float) + 63) / 64 * 64);
    float *tpanels = aligned_alloc(64, ((size_t)n_tpanels * tpanel_floats * sizeof(float) + 63) / 64 * 64);
    if (!panels || !tpanels) { free(panels); free(tpanels); return 0; }
    for (int64_t p = 0; p < n_panels; p++) pack_panel(type, cols, w, w_row_bytes, row_begin + p * 16, row_end, panels + p * panel_floats);
    for (int64_t q = 0; q < n_tpanels; q++) pack_tokens(cols, x, q * 6, n_tokens, tpanels + q * tpanel_floats);
    for (int64_t q0 = 0; q0 < n_tpanels; q0 += TOKEN_PANELS) {
        int64_t q1 = q0 + TOKEN_PANELS < n_tpanels ? q0 + TOKEN_PANELS : n_tpanels;
        for (int64_t p = 0; p < n_panels; p++) {
            int64_t r0 = row_begin + p * 16, valid = row_end - r0 < 16 ? row_end - r0 : 16;
            for (int64_t q = q0; q < q1; q++) {
                int64_t t0 = q * 6, nt = n_tokens - t0 < 6 ? n_tokens - t0 : 6;
                micro_6x16(cols, tpanels + q * tpanel_floats, panels + p * panel_floats, out + t0 * out_stride + r0,
                           out_stride, nt, valid);
            }
        }
    }
    free(panels);
    free(tpanels);
    return 1;
}

__attribute__((target("avx2,fma,f16c")))
static void gemm_avx2(int32_t type, int64_t cols, const char *w, size_t w_row_bytes, int64_t row_begin,
                      int64_t row_end, const float *x, int64_t n_tokens, float *out, int64_t out_stride) {
    for (int64_t rb = row_begin; rb < row_end; rb += ROW_BLOCK) {
        int64_t re = rb + ROW_BLOCK < row_end ? rb + ROW_BLOCK : row_end;
        for (int64_t tb = 0; tb < n_tokens; tb += TOKEN_BLOCK) {
            int64_t te = tb + TOKEN_BLOCK < n_tokens ? tb + TOKEN_BLOCK : n_tokens;
            int64_t t = tb;
            for (; t + 4 <= te; t += 4) {
                int64_t r = rb;
                for (; r + 3 <= re; r += 3)
                    tile_4x3(type, cols, w + r * w_row_bytes, w + (r + 1) * w_row_bytes, w + (r + 2) * w_row_bytes,
                             x + t * cols, out + t * out_stride + r, out_stride);
                for (; r < re; r++)
                    for (int64_t u = t; u < t + 4; u++)
                        out[u * out_stride + r] = dot_1x1(type, cols, w + r * w_row_bytes, x + u * cols);
            }
            for (; t < te; t++)
                for (int64_t r = rb; r < re; r++)
                    out[t * out_stride + r] = dot_1x1(type, cols, w + r * w_row_bytes, x + t * cols);
        }
    }
}
#endif

int od_gemm_rows(int32_t w_type, int64_t cols, const void *w, size_t w_row_bytes,
                 int64_t row_begin, int64_t row_end, const float *x, int64_t n_tokens,
                 float *out, int64_t out_stride) {
    if (w_type != 0 && w_type != 1) return 0;
#ifdef OD_GEMM_X86
    if (cols % 8 == 0 && odk_has_avx2()) {
        // Enough tokens to amortize packing: the panel kernel; a handful: the dot-product tiles.
        if (n_tokens >= 6 && gemm_packed(w_type, cols, w, w_row_bytes, row_begin, row_end, x, n_tokens, out, out_stride)) return 1;
        gemm_avx2(w_type, cols, w, w_row_bytes, row_begin, row_end, x, n_tokens, out, out_stride);
        return 1;
    }
#endif
    return od_gemm_rows_scalar(w_type, cols, w, w_row_bytes, row_begin, row_end, x, n_tokens, out, out_stride);
}
