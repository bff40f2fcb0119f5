// Register-blocked products of token rows with F32/F16 weight rows (see od_gemm.h).
//
// The weights keep their file layout (one contiguous row per output). With six or more tokens,
// each call packs 16 weight rows at a time into a k-major panel (F16 converted once) and runs a
// 6-token x 16-row outer-product kernel over it: 12 accumulators, two weight loads and six
// broadcasts per k for 12 FMAs, and no horizontal sums; packing costs 1/n_tokens of the work.
// With fewer tokens a 4-token x 3-row dot-product tile (12 accumulators, 7 loads per 12 FMAs,
// horizontal sums at the end) avoids the packing.
#include <stdlib.h>
#include <string.h>
#include "od_gemm_rows.h"
#include "ckernels.h"

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

/// `nt` (1...6) tokens x 16 packed rows: for each k, two weight vectors and one broadcast per
/// token, 2 x nt FMAs, no horizontal sums. Each output is one in-order sum over k.
GEMM_FN void panel_kernel(int nt, int64_t cols, const float *panel, const float *x, float *out,
                          int64_t out_stride, int64_t valid) {
    __m256 acc[6][2];
    for (int i = 0; i < 6; i++) acc[i][0] = acc[i][1] = _mm256_setzero_ps();
    for (int64_t k = 0; k < cols; k++) {
        __m256 w0 = _mm256_loadu_ps(panel + k * 16), w1 = _mm256_loadu_ps(panel + k * 16 + 8);
        for (int i = 0; i < nt; i++) {
            __m256 b = _mm256_broadcast_ss(x + i * cols + k);
            acc[i][0] = _mm256_fmadd_ps(b, w0, acc[i][0]);
            acc[i][1] = _mm256_fmadd_ps(b, w1, acc[i][1]);
        }
    }
    for (int i = 0; i < nt; i++) {
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

__attribute__((target("avx2,fma,f16c")))
static int gemm_packed(int32_t type, int64_t cols, const char *w, size_t w_row_bytes, int64_t row_begin,
                       int64_t row_end, const float *x, int64_t n_tokens, float *out, int64_t out_stride) {
    float *panel = aligned_alloc(64, (size_t)((cols * 16 * sizeof(float) + 63) / 64 * 64));
    if (!panel) return 0;
    for (int64_t r0 = row_begin; r0 < row_end; r0 += 16) {
        int64_t valid = row_end - r0 < 16 ? row_end - r0 : 16;
        pack_panel(type, cols, w, w_row_bytes, r0, row_end, panel);
        int64_t t = 0;
        // The 6-token case is spelled out so the compiler keeps all 12 accumulators in registers.
        for (; t + 6 <= n_tokens; t += 6) panel_kernel(6, cols, panel, x + t * cols, out + t * out_stride + r0, out_stride, valid);
        for (; t < n_tokens; t++) panel_kernel(1, cols, panel, x + t * cols, out + t * out_stride + r0, out_stride, valid);
    }
    free(panel);
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
