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

// The exact (erf) GELU is od_gelu_erf in od_encoder.h.

/// Attention of `rows` query rows (stride ld_q) over n keys given transposed: kt is
/// (head_dim, n) row-major, so scores come from broadcasts and FMAs without horizontal sums;
/// values are (n, head_dim) with row stride ld_v. scores: scratch of rows * n floats.
/// out[r] = softmax(scale * q[r] K^T) V, at out + r * ld_out.
void od_attend_transposed(const float *q, int64_t ld_q, int64_t rows, const float *kt, const float *v, int64_t ld_v,
                          int64_t n, int64_t head_dim, float scale, float *scores, float *out, int64_t ld_out);

/// log(sum(exp(x))) over n floats, computed stably.
float od_log_sum_exp(const float *x, int64_t n);

#endif
