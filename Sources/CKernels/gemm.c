// Blocked matrix product for many-row batches (Whisper's encoder works on 1500 positions at
// once, where the one-row-at-a-time dot kernels leave most of the FMA units idle).
//
// Goto/van de Geijn structure: B is packed, KC rows of the reduction at a time, into panels of
// 16 columns (p-major, converted to f32), and a 6x16 register-blocked micro-kernel broadcasts
// one A element per row and multiplies it into two 8-wide B vectors: 12 accumulators, 2 loads
// and 6 broadcasts per 12 FMAs. A scalar reference beside it, chosen at run time.
#include <math.h>
#include <string.h>
#include "od_gemm.h"
#include "od_encoder.h"
#include "ckernels.h"
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

AVX2_FN static void gemm_avx2(int64_t m, int64_t k, const float *a, int64_t lda,
                              const void *b, int64_t ldb, int b_type, int b_kmajor,
                              float *c, int64_t ldc, int accumulate, int64_t col_begin, int64_t col_end) {
    float panel[KC * NR] __attribute__((aligned(32)));
    for (int64_t p0 = 0; p0 < k; p0 += KC) {
        int64_t kc = k - p0 < KC ? k - p0 : KC;
        int acc = accumulate || p0 > 0;
        for (int64_t j0 = col_begin; j0 < col_end; j0 += NR) {
            int cols = (int)(col_end - j0 < NR ? col_end - j0 : NR);
            pack_panel(b, ldb, b_type, b_kmajor, j0, cols, p0, kc, panel);
            for (int64_t i0 = 0; i0 < m; i0 += MR) {
                int rows = (int)(m - i0 < MR ? m - i0 : MR);
                kernel_6x16(kc, a + i0 * lda + p0, lda, panel, c + i0 * ldc + j0, ldc, rows, cols, acc);
            }
        }
    }
}

// exp for x <= 0 (softmax after the max is subtracted): Cephes expf's range reduction and
// degree-5 polynomial, about 1 ulp; below -87 the result flushes to 0.
AVX2_INLINE __m256 exp_ps(__m256 x) {
    x = _mm256_max_ps(x, _mm256_set1_ps(-87.0f));
    __m256 n = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(1.44269504088896341f)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693359375f), x);
    r = _mm256_fnmadd_ps(n, _mm256_set1_ps(-2.12194440e-4f), r);
    __m256 p = _mm256_set1_ps(1.9875691500e-4f);
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.3981999507e-3f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(8.3334519073e-3f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(4.1665795894e-2f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.6666665459e-1f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(5.0000001201e-1f));
    p = _mm256_fmadd_ps(_mm256_mul_ps(p, r), r, _mm256_add_ps(r, _mm256_set1_ps(1.0f)));
    __m256i e = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
    return _mm256_mul_ps(p, _mm256_castsi256_ps(e));
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
        gemm_avx2(m, k, a, lda, b, ldb, b_type, b_kmajor, c, ldc, accumulate, col_begin, col_end);
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
