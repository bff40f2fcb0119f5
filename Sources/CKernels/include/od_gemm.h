// Matrix products for encoder batches: many tokens against F32 or F16 weight rows, as in a
// BERT forward pass over a packed batch. Register-blocked (4 tokens x 3 weight rows share
// every load) on AVX2/FMA/F16C, chosen at run time; a scalar twin elsewhere.
#ifndef ONDEVICE_GEMM_H
#define ONDEVICE_GEMM_H
#include <stddef.h>
#include <stdint.h>

/// Matrix product for batches of many rows (encoders, prompt prefill, attention blocks):
/// C[i][j] (+)= sum_p A[i][p] * B(j, p) for i < m and j in [col_begin, col_end).
///
/// A: m rows of k floats, row stride lda. B(j, p) is B[j * ldb + p] (weight layout: one row
/// per output, as a PyTorch Linear stores it) or, with b_kmajor, B[p * ldb + j] (the layout of
/// attention values). b_type: 0 = f32, 1 = IEEE f16. accumulate: add into C instead of
/// overwriting it. Columns are split by the caller for threads; every call is independent.
void od_gemm(int64_t m, int64_t n, int64_t k, const float *a, int64_t lda,
             const void *b, int64_t ldb, int b_type, int b_kmajor,
             float *c, int64_t ldc, int accumulate, int64_t col_begin, int64_t col_end);

/// The same with a portable scalar loop: the reference the tests hold od_gemm to.
void od_gemm_scalar(int64_t m, int64_t n, int64_t k, const float *a, int64_t lda,
                    const void *b, int64_t ldb, int b_type, int b_kmajor,
                    float *c, int64_t ldc, int accumulate, int64_t col_begin, int64_t col_end);

/// Row-wise softmax of scale * x over `rows` rows of `n` (stride ld), in place.
void od_softmax_rows(float *x, int64_t rows, int64_t n, int64_t ld, float scale);

/// out = 0.5 x (1 + erf(x / sqrt 2)) (exact GELU), out may alias x.
void od_gelu_erf(const float *x, float *out, int64_t n);

#ifdef __cplusplus
extern "C" {
#endif

/// out[t * out_stride + r] = dot(x + t * cols, weight row r) for t in [0, n_tokens) and r in
/// [row_begin, row_end). Weight rows hold `cols` elements of ggml type `w_type` (0 = F32,
/// 1 = F16), `w_row_bytes` apart. Returns 0 when `w_type` is not F32 or F16 (nothing written).
int od_gemm_rows(int32_t w_type, int64_t cols, const void *w, size_t w_row_bytes,
                 int64_t row_begin, int64_t row_end, const float *x, int64_t n_tokens,
                 float *out, int64_t out_stride);

/// The portable scalar twin of od_gemm_rows.
int od_gemm_rows_scalar(int32_t w_type, int64_t cols, const void *w, size_t w_row_bytes,
                        int64_t row_begin, int64_t row_end, const float *x, int64_t n_tokens,
                        float *out, int64_t out_stride);

#ifdef __cplusplus
}
#endif
#endif
