// Blocked matrix product for many-row batches (Whisper's encoder works on 1500 positions at
// once, where the one-row-at-a-time dot kernels leave most of the FMA units idle).
//
// Goto/van de Geijn structure: B is packed, KC rows of the reduction at a time, into panels of
// 16 columns (p-major, converted to f32), and a 6x16 register-blocked micro-kernel broadcasts
// one A element per row and multiplies it into two 8-wide B vectors: 12 accumulators, 2 loads
// and 6 broadcasts per 12 FMAs. A scalar reference beside it, chosen at run time.
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "od_gemm.h"
#include "od_kernels.h"
#include "simd.h"

enum { KC = 256, NR = 16, MR = 6 };

static inline float load_b(const void *b, int64_t ldb, int b_type, int b_kmajor, int64_t j, int64_t p) {
    int64_t idx = b_kmajor ? p * ldb + j : j * ldb + p;
    return b_type == 1 ? odk_fp16_to_fp32(((const uint16_t *)b)[idx]) : ((const float *)b)[idx];
}

void od_gemm_scalar(int64_t m, int64_t n, int64_t k, const float *a, int64_t lda,
                    const void *b, int64_t ldb, int b_type, int b_kmajor,
                    float *c, int64_t ldc, int accumulate, int64_t col_begin, int64_t col_end) {
    (void)n;
    for (int64_t i = 0; i < m; i++) {
        for (int64_t j = col_begin; j < col_end; j++) {
            float s = 0;
            for (int64_t p = 0; p < k; p++) s += a[i * lda + p] * load_b(b, ldb, b_type, b_kmajor, j, p);
            c[i * ldc + j] = accumulate ? c[i * ldc + j] + s : s;
        }
    }
}

#if defined(__x86_64__) || defined(__i386__)
/// Packs columns j0 .. j0+cols-1 (cols <= 16), reduction rows p0 .. p0+kc-1, into panel[p][16],
/// zero-filling missing columns.
AVX2_FN static void pack_panel(const void *b, int64_t ldb, int b_type, int b_kmajor,
                               int64_t j0, int cols, int64_t p0, int64_t kc, float *panel) {
    if (b_kmajor && cols == NR) {
        for (int64_t p = 0; p < kc; p++) {
            if (b_type == 1) {
                const uint16_t *src = (const uint16_t *)b + (p0 + p) * ldb + j0;
                _mm256_storeu_ps(panel + p * NR, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)src)));
                _mm256_storeu_ps(panel + p * NR + 8, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(src + 8))));
            } else {
                memcpy(panel + p * NR, (const float *)b + (p0 + p) * ldb + j0, NR * sizeof(float));
            }
        }
        return;
    }
    for (int jj = 0; jj < NR; jj++) {
        if (jj >= cols) {
            for (int64_t p = 0; p < kc; p++) panel[p * NR + jj] = 0;
            continue;
        }
        int64_t j = j0 + jj;
        if (!b_kmajor && b_type == 1) {
            const uint16_t *src = (const uint16_t *)b + j * ldb + p0;
            int64_t p = 0;
            float tmp[8];
            for (; p + 8 <= kc; p += 8) {
                _mm256_storeu_ps(tmp, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(src + p))));
                for (int q = 0; q < 8; q++) panel[(p + q) * NR + jj] = tmp[q];
            }
            for (; p < kc; p++) panel[p * NR + jj] = _cvtsh_ss(src[p]);
        } else {
            for (int64_t p = 0; p < kc; p++) panel[p * NR + jj] = load_b(b, ldb, b_type, b_kmajor, j, p0 + p);
        }
    }
}

/// C[rows][cols] (+)= A[rows][kc] * panel[kc][16]; rows <= 6, cols <= 16.
AVX2_FN static void kernel_6x16(int64_t kc, const float *a, int64_t lda, const float *panel,
                                float *c, int64_t ldc, int rows, int cols, int accumulate) {
    const float *r[MR];
    for (int i = 0; i < MR; i++) r[i] = a + (i < rows ? i : 0) * lda;
    __m256 c00 = _mm256_setzero_ps(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00;
    __m256 c30 = c00, c31 = c00, c40 = c00, c41 = c00, c50 = c00, c51 = c00;
    for (int64_t p = 0; p < kc; p++) {
        __m256 b0 = _mm256_loadu_ps(panel + p * NR), b1 = _mm256_loadu_ps(panel + p * NR + 8);
        __m256 x = _mm256_broadcast_ss(r[0] + p);
        c00 = _mm256_fmadd_ps(x, b0, c00); c01 = _mm256_fmadd_ps(x, b1, c01);
        x = _mm256_broadcast_ss(r[1] + p);
        c10 = _mm256_fmadd_ps(x, b0, c10); c11 = _mm256_fmadd_ps(x, b1, c11);
        x = _mm256_broadcast_ss(r[2] + p);
        c20 = _mm256_fmadd_ps(x, b0, c20); c21 = _mm256_fmadd_ps(x, b1, c21);
        x = _mm256_broadcast_ss(r[3] + p);
        c30 = _mm256_fmadd_ps(x, b0, c30); c31 = _mm256_fmadd_ps(x, b1, c31);
        x = _mm256_broadcast_ss(r[4] + p);
        c40 = _mm256_fmadd_ps(x, b0, c40); c41 = _mm256_fmadd_ps(x, b1, c41);
        x = _mm256_broadcast_ss(r[5] + p);
        c50 = _mm256_fmadd_ps(x, b0, c50); c51 = _mm256_fmadd_ps(x, b1, c51);
    }
    if (rows == MR && cols == NR) {
        // Full tile: straight from registers (the generic path below spills them to the stack).
#define STORE_ROW(i, lo, hi) do { \
            float *dst = c + (i) * ldc; \
            if (accumulate) { \
                lo = _mm256_add_ps(lo, _mm256_loadu_ps(dst)); \
                hi = _mm256_add_ps(hi, _mm256_loadu_ps(dst + 8)); \
            } \
            _mm256_storeu_ps(dst, lo); \
            _mm256_storeu_ps(dst + 8, hi); \
        } while (0)
        STORE_ROW(0, c00, c01); STORE_ROW(1, c10, c11); STORE_ROW(2, c20, c21);
        STORE_ROW(3, c30, c31); STORE_ROW(4, c40, c41); STORE_ROW(5, c50, c51);
#undef STORE_ROW
        return;
    }
    __m256 acc[MR][2] = {{c00, c01}, {c10, c11}, {c20, c21}, {c30, c31}, {c40, c41}, {c50, c51}};
    for (int i = 0; i < rows; i++) {
        float *dst = c + i * ldc;
        if (cols == NR) {
            __m256 lo = acc[i][0], hi = acc[i][1];
            if (accumulate) {
                lo = _mm256_add_ps(lo, _mm256_loadu_ps(dst));
                hi = _mm256_add_ps(hi, _mm256_loadu_ps(dst + 8));
            }
            _mm256_storeu_ps(dst, lo);
            _mm256_storeu_ps(dst + 8, hi);
        } else {
            float tmp[NR];
            _mm256_storeu_ps(tmp, acc[i][0]);
            _mm256_storeu_ps(tmp + 8, acc[i][1]);
            for (int j = 0; j < cols; j++) dst[j] = accumulate ? dst[j] + tmp[j] : tmp[j];
        }
    }
}

AVX2_FN static void softmax_rows_avx2(float *x, int64_t rows, int64_t n, int64_t ld, float scale);

/// Few rows (beam search steps): no packing, each F16/F32 weight row is converted once and
/// multiplied into every activation row; two weight rows at a time share the activation loads.
AVX2_FN static void gemm_few_rows(int64_t m, int64_t k, const float *a, int64_t lda, const void *b, int64_t ldb, int b_type,
                                  float *c, int64_t ldc, int accumulate, int64_t col_begin, int64_t col_end) {
    enum { MMAX = 8 };
    for (int64_t j = col_begin; j < col_end; j += 2) {
        int two = j + 1 < col_end;
        __m256 acc0[MMAX], acc1[MMAX];
        for (int i = 0; i < m; i++) { acc0[i] = _mm256_setzero_ps(); acc1[i] = _mm256_setzero_ps(); }
        int64_t p = 0;
        for (; p + 8 <= k; p += 8) {
            __m256 w0, w1;
            if (b_type == 1) {
                w0 = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)((const uint16_t *)b + j * ldb + p)));
                w1 = two ? _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)((const uint16_t *)b + (j + 1) * ldb + p))) : w0;
            } else {
                w0 = _mm256_loadu_ps((const float *)b + j * ldb + p);
                w1 = two ? _mm256_loadu_ps((const float *)b + (j + 1) * ldb + p) : w0;
            }
            for (int i = 0; i < m; i++) {
                __m256 x = _mm256_loadu_ps(a + i * lda + p);
                acc0[i] = _mm256_fmadd_ps(w0, x, acc0[i]);
                acc1[i] = _mm256_fmadd_ps(w1, x, acc1[i]);
            }
        }
        for (int i = 0; i < m; i++) {
            float s0 = hsum_ps(acc0[i]), s1 = hsum_ps(acc1[i]);
            for (int64_t q = p; q < k; q++) {
                s0 += a[i * lda + q] * load_b(b, ldb, b_type, 0, j, q);
                if (two) s1 += a[i * lda + q] * load_b(b, ldb, b_type, 0, j + 1, q);
            }
            c[i * ldc + j] = accumulate ? c[i * ldc + j] + s0 : s0;
            if (two) c[i * ldc + j + 1] = accumulate ? c[i * ldc + j + 1] + s1 : s1;
        }
    }
}

/// Blocking: all of B's panels for KC reduction rows are packed once (a few MiB at most, in
/// L3), then MC rows of A at a time (MC x KC floats, about 96 KiB, stay in L2) meet every panel.
AVX2_FN static void gemm_avx2(int64_t m, int64_t k, const float *a, int64_t lda,
                              const void *b, int64_t ldb, int b_type, int b_kmajor,
                              float *c, int64_t ldc, int accumulate, int64_t col_begin, int64_t col_end) {
    enum { MC = 96 };
    int64_t panels = (col_end - col_begin + NR - 1) / NR;
    float *packed = aligned_alloc(64, (size_t)(panels * NR * KC) * sizeof(float));
    if (!packed) {
        od_gemm_scalar(m, 0, k, a, lda, b, ldb, b_type, b_kmajor, c, ldc, accumulate, col_begin, col_end);
        return;
    }
    for (int64_t p0 = 0; p0 < k; p0 += KC) {
        int64_t kc = k - p0 < KC ? k - p0 : KC;
        int acc = accumulate || p0 > 0;
        for (int64_t q = 0; q < panels; q++) {
            int64_t j0 = col_begin + q * NR;
            int cols = (int)(col_end - j0 < NR ? col_end - j0 : NR);
            pack_panel(b, ldb, b_type, b_kmajor, j0, cols, p0, kc, packed + q * NR * kc);
        }
        for (int64_t i1 = 0; i1 < m; i1 += MC) {
            int64_t i2 = i1 + MC < m ? i1 + MC : m;
            for (int64_t q = 0; q < panels; q++) {
                int64_t j0 = col_begin + q * NR;
                int cols = (int)(col_end - j0 < NR ? col_end - j0 : NR);
                for (int64_t i0 = i1; i0 < i2; i0 += MR) {
                    int rows = (int)(i2 - i0 < MR ? i2 - i0 : MR);
                    kernel_6x16(kc, a + i0 * lda + p0, lda, packed + q * NR * kc, c + i0 * ldc + j0, ldc, rows, cols, acc);
                }
            }
        }
    }
    free(packed);
}


AVX2_FN static void attend_transposed_avx2(const float *q, int64_t ld_q, int64_t rows, const float *kt, const float *v,
                                           int64_t ld_v, int64_t n, int64_t hd, float scale, float *scores, float *out,
                                           int64_t ld_out) {
    // Scores, 32 keys at a time: the (head_dim, 32) slice of K^T stays in L1 across the rows.
    int64_t j = 0;
    for (; j + 32 <= n; j += 32) {
        for (int64_t r = 0; r < rows; r++) {
            __m256 s0 = _mm256_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
            const float *qr = q + r * ld_q;
            for (int64_t d = 0; d < hd; d++) {
                __m256 x = _mm256_broadcast_ss(qr + d);
                const float *kd = kt + d * n + j;
                s0 = _mm256_fmadd_ps(x, _mm256_loadu_ps(kd), s0);
                s1 = _mm256_fmadd_ps(x, _mm256_loadu_ps(kd + 8), s1);
                s2 = _mm256_fmadd_ps(x, _mm256_loadu_ps(kd + 16), s2);
                s3 = _mm256_fmadd_ps(x, _mm256_loadu_ps(kd + 24), s3);
            }
            float *sr = scores + r * n + j;
            _mm256_storeu_ps(sr, s0); _mm256_storeu_ps(sr + 8, s1);
            _mm256_storeu_ps(sr + 16, s2); _mm256_storeu_ps(sr + 24, s3);
        }
    }
    for (; j < n; j++) {
        for (int64_t r = 0; r < rows; r++) {
            float s = 0;
            for (int64_t d = 0; d < hd; d++) s += q[r * ld_q + d] * kt[d * n + j];
            scores[r * n + j] = s;
        }
    }
    softmax_rows_avx2(scores, rows, n, n, scale);
    // out = P V: each value row scaled by its probability and added, the head's outputs held
    // in registers (head_dim a multiple of 8, at most 128), so every value row is read once.
    for (int64_t r = 0; r < rows; r++) {
        float *o = out + r * ld_out;
        const float *pr = scores + r * n;
        for (int64_t d0 = 0; d0 < hd; d0 += 64) {
            int64_t width = hd - d0 < 64 ? hd - d0 : 64;
            __m256 acc[8];
            for (int i = 0; i < 8; i++) acc[i] = _mm256_setzero_ps();
            for (int64_t t = 0; t < n; t++) {
                __m256 p = _mm256_broadcast_ss(pr + t);
                const float *vt = v + t * ld_v + d0;
                for (int i = 0; i < width / 8; i++) acc[i] = _mm256_fmadd_ps(p, _mm256_loadu_ps(vt + 8 * i), acc[i]);
            }
            for (int i = 0; i < width / 8; i++) _mm256_storeu_ps(o + d0 + 8 * i, acc[i]);
        }
    }
}

AVX2_FN static float log_sum_exp_avx2(const float *x, int64_t n) {
    float max = -INFINITY;
    for (int64_t i = 0; i < n; i++) max = x[i] > max ? x[i] : max;
    __m256 vm = _mm256_set1_ps(max), sum = _mm256_setzero_ps();
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) sum = _mm256_add_ps(sum, exp_ps(_mm256_sub_ps(_mm256_loadu_ps(x + i), vm)));
    float s = hsum_ps(sum);
    for (; i < n; i++) s += expf(x[i] - max);
    return max + logf(s);
}

AVX2_FN static void softmax_rows_avx2(float *x, int64_t rows, int64_t n, int64_t ld, float scale) {
    for (int64_t i = 0; i < rows; i++) {
        float *row = x + i * ld;
        float max = -INFINITY;
        for (int64_t j = 0; j < n; j++) max = row[j] > max ? row[j] : max;
        __m256 vs = _mm256_set1_ps(scale), vm = _mm256_set1_ps(max * scale), sum = _mm256_setzero_ps();
        int64_t j = 0;
        for (; j + 8 <= n; j += 8) {
            __m256 e = exp_ps(_mm256_fmsub_ps(_mm256_loadu_ps(row + j), vs, vm));
            _mm256_storeu_ps(row + j, e);
            sum = _mm256_add_ps(sum, e);
        }
        float s = hsum_ps(sum);
        for (; j < n; j++) { row[j] = expf(row[j] * scale - max * scale); s += row[j]; }
        __m256 inv = _mm256_set1_ps(1.0f / s);
        for (j = 0; j + 8 <= n; j += 8) _mm256_storeu_ps(row + j, _mm256_mul_ps(_mm256_loadu_ps(row + j), inv));
        for (; j < n; j++) row[j] *= 1.0f / s;
    }
}
#endif

void od_gemm(int64_t m, int64_t n, int64_t k, const float *a, int64_t lda,
             const void *b, int64_t ldb, int b_type, int b_kmajor,
             float *c, int64_t ldc, int accumulate, int64_t col_begin, int64_t col_end) {
#if defined(__x86_64__) || defined(__i386__)
    if (odk_has_avx2()) {
        if (m <= 8 && !b_kmajor) {
            gemm_few_rows(m, k, a, lda, b, ldb, b_type, c, ldc, accumulate, col_begin, col_end);
        } else {
            gemm_avx2(m, k, a, lda, b, ldb, b_type, b_kmajor, c, ldc, accumulate, col_begin, col_end);
        }
        return;
    }
#endif
    od_gemm_scalar(m, n, k, a, lda, b, ldb, b_type, b_kmajor, c, ldc, accumulate, col_begin, col_end);
}

void od_softmax_rows(float *x, int64_t rows, int64_t n, int64_t ld, float scale) {
#if defined(__x86_64__) || defined(__i386__)
    if (odk_has_avx2()) {
        softmax_rows_avx2(x, rows, n, ld, scale);
        return;
    }
#endif
    for (int64_t i = 0; i < rows; i++) {
        float *row = x + i * ld;
        float max = -INFINITY;
        for (int64_t j = 0; j < n; j++) max = row[j] > max ? row[j] : max;
        float s = 0;
        for (int64_t j = 0; j < n; j++) { row[j] = expf((row[j] - max) * scale); s += row[j]; }
        for (int64_t j = 0; j < n; j++) row[j] /= s;
    }
}

void od_attend_transposed(const float *q, int64_t ld_q, int64_t rows, const float *kt, const float *v, int64_t ld_v,
                          int64_t n, int64_t head_dim, float scale, float *scores, float *out, int64_t ld_out) {
#if defined(__x86_64__) || defined(__i386__)
    if (odk_has_avx2() && head_dim % 8 == 0) {
        attend_transposed_avx2(q, ld_q, rows, kt, v, ld_v, n, head_dim, scale, scores, out, ld_out);
        return;
    }
#endif
    for (int64_t r = 0; r < rows; r++) {
        float *s = scores + r * n;
        for (int64_t j = 0; j < n; j++) {
            float acc = 0;
            for (int64_t d = 0; d < head_dim; d++) acc += q[r * ld_q + d] * kt[d * n + j];
            s[j] = acc;
        }
    }
    od_softmax_rows(scores, rows, n, n, scale);
    for (int64_t r = 0; r < rows; r++) {
        for (int64_t d = 0; d < head_dim; d++) {
            float acc = 0;
            for (int64_t j = 0; j < n; j++) acc += scores[r * n + j] * v[j * ld_v + d];
            out[r * ld_out + d] = acc;
        }
    }
}

float od_log_sum_exp(const float *x, int64_t n) {
#if defined(__x86_64__) || defined(__i386__)
    if (odk_has_avx2()) return log_sum_exp_avx2(x, n);
#endif
    float max = -INFINITY;
    for (int64_t i = 0; i < n; i++) max = x[i] > max ? x[i] : max;
    double s = 0;
    for (int64_t i = 0; i < n; i++) s += expf(x[i] - max);
    return max + (float)log(s);
}
