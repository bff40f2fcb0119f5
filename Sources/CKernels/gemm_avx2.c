// Prefill GEMM, part 2: the AVX2 microkernel and the row-range driver. A tile of weight rows is
// decoded once (gemm_decode.c) and reused for every token; the microkernel computes 2 rows x 4
// tokens, so each decoded row vector and each activation vector is loaded once per pair or
// quad, and every (row, token, 32 elements) costs maddubs, madd, cvt, mul and fma.
#include "simd.h"
#include "gemm.h"

size_t odk_gemm_scratch_bytes(int64_t cols) {
    // codes (cols) + expanded scales (cols / 4 floats) + mins (cols / 16 floats), per tile row;
    // or the AVX-512 form's tile and decoding row (gemm_avx512.c), whichever is larger.
    size_t avx2 = (size_t)GEMM_TILE_ROWS * ((size_t)cols + (size_t)cols + (size_t)cols / 4) + 64;
    size_t avx512 = odk_gemm_scratch_bytes_avx512(cols);
    return avx2 > avx512 ? avx2 : avx512;
}

#if defined(__x86_64__) || defined(__i386__)

/// R rows x T tokens over `nb` 32-element blocks; res[r][t] gets the scale terms only.
AVX2_INLINE void micro(int R, int T, int64_t nb, int64_t cols, const uint8_t *u, const float *s8,
                       const int8_t *const a[4], const float *const ad[4], float res[2][4]) {
    __m256 acc[2][4];
    for (int r = 0; r < R; r++)
        for (int t = 0; t < T; t++) acc[r][t] = _mm256_setzero_ps();
    const __m256i ones = _mm256_set1_epi16(1);
    for (int64_t b = 0; b < nb; b++) {
        __m256i ur[2];
        __m256 sr[2];
        for (int r = 0; r < R; r++) {
            ur[r] = _mm256_loadu_si256((const __m256i *)(u + r * cols + 32 * b));
            sr[r] = _mm256_loadu_ps(s8 + r * (cols / 4) + 8 * b);
        }
        for (int t = 0; t < T; t++) {
            __m256i at = _mm256_loadu_si256((const __m256i *)(a[t] + 32 * b));
            __m256 dt = _mm256_broadcast_ss(ad[t] + b);
            for (int r = 0; r < R; r++) {
                __m256i p = _mm256_madd_epi16(_mm256_maddubs_epi16(ur[r], at), ones);
                acc[r][t] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(p), _mm256_mul_ps(sr[r], dt), acc[r][t]);
            }
        }
    }
    for (int r = 0; r < R; r++)
        for (int t = 0; t < T; t++) res[r][t] = hsum_ps(acc[r][t]);
}

AVX2_INLINE float dot_ps(const float *x, const float *y, int64_t n) {
    __m256 s = _mm256_setzero_ps();
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) s = _mm256_fmadd_ps(_mm256_loadu_ps(x + i), _mm256_loadu_ps(y + i), s);
    float r = hsum_ps(s);
    for (; i < n; i++) r += x[i] * y[i];
    return r;
}

#define MICRO_CASE(R, T) case (R) * 8 + (T): micro(R, T, nb, cols, u, s8, a, ad, res); break;

static AVX2_FN void micro_any(int R, int T, int64_t nb, int64_t cols, const uint8_t *u, const float *s8,
                              const int8_t *const a[4], const float *const ad[4], float res[2][4]) {
    switch (R * 8 + T) {
    MICRO_CASE(2, 4) MICRO_CASE(2, 3) MICRO_CASE(2, 2) MICRO_CASE(2, 1)
    MICRO_CASE(1, 4) MICRO_CASE(1, 3) MICRO_CASE(1, 2) MICRO_CASE(1, 1)
    default: break;
    }
}

AVX2_FN void odk_gemm_rows_avx2(int32_t type, int64_t cols, const void *w, size_t w_row_bytes,
                                int64_t row_begin, int64_t row_end, const void *panel, int64_t n_tokens,
                                float *out, int64_t out_stride, void *scratch) {
    size_t prb = odk_gemm_panel_row_bytes_avx2(cols);
    int64_t nb = cols / 32, ng = cols / 16;
    uint8_t *u = (uint8_t *)(((uintptr_t)scratch + 63) & ~(uintptr_t)63);
    float *s8 = (float *)(u + GEMM_TILE_ROWS * cols);
    float *mins = s8 + GEMM_TILE_ROWS * (cols / 4);
    for (int64_t rb = row_begin; rb < row_end; rb += GEMM_TILE_ROWS) {
        int64_t nr = row_end - rb < GEMM_TILE_ROWS ? row_end - rb : GEMM_TILE_ROWS;
        for (int64_t r = 0; r < nr; r++)
            odk_gemm_decode_row(type, (const char *)w + (rb + r) * w_row_bytes, cols,
                                u + r * cols, s8 + r * (cols / 4), mins + r * ng);
        for (int64_t t0 = 0; t0 < n_tokens; t0 += 4) {
            int T = n_tokens - t0 < 4 ? (int)(n_tokens - t0) : 4;
            const int8_t *a[4];
            const float *ad[4], *as[4];
            for (int t = 0; t < 4; t++) {
                const int8_t *row = (const int8_t *)((const char *)panel + (t0 + (t < T ? t : 0)) * prb);
                a[t] = row;
                ad[t] = (const float *)(row + cols);
                as[t] = ad[t] + nb;
            }
            for (int64_t r = 0; r < nr; r += 2) {
                int R = nr - r < 2 ? 1 : 2;
                float res[2][4];
                micro_any(R, T, nb, cols, u + r * cols, s8 + r * (cols / 4), a, ad, res);
                for (int rr = 0; rr < R; rr++)
                    for (int t = 0; t < T; t++)
                        out[(t0 + t) * out_stride + rb + r + rr] = res[rr][t] + dot_ps(mins + (r + rr) * ng, as[t], ng);
            }
        }
    }
}
#else
void odk_gemm_rows_avx2(int32_t type, int64_t cols, const void *w, size_t w_row_bytes,
                        int64_t row_begin, int64_t row_end, const void *panel, int64_t n_tokens,
                        float *out, int64_t out_stride, void *scratch) {
    (void)type; (void)cols; (void)w; (void)w_row_bytes; (void)row_begin; (void)row_end;
    (void)panel; (void)n_tokens; (void)out; (void)out_stride; (void)scratch;
}
#endif
