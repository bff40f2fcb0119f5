// Encoder self-attention of one head over one whole sequence (see od_attention.h). Keys are
// transposed once into a zero-padded (head_dim, n8) block, so eight scores come from one
// broadcast of a query element and one FMA, with no horizontal sums; four query rows at a time
// keep eight FMA chains in flight (one row alone waits on FMA latency). The softmax uses the
// vector exp; the value sums keep two output rows in registers. Queries go in blocks of 32
// rows, so the scratch stays small for long sequences. Head sizes other than multiples of 32
// take od_attend_head row by row.
#include <math.h>
#include <string.h>
#include "od_attention.h"
#include "od_kernels.h"
#include "simd.h"

enum { QUERY_BLOCK = 32 };

static int64_t round8(int64_t n) { return (n + 7) / 8 * 8; }

size_t od_attend_sequence_scratch(int64_t n, int64_t head_dim) {
    int64_t n8 = round8(n);
    return (size_t)(head_dim * n8 + QUERY_BLOCK * n8);
}

static void attend_sequence_scalar(const float *q, const float *k, const float *v, int64_t stride, int64_t n,
                                   int64_t head_dim, float scale, float *scratch, float *out, int64_t ld_out) {
    for (int64_t r = 0; r < n; r++)
        od_attend_head(q + r * stride, k, v, (size_t)stride, (size_t)n, (size_t)head_dim, scale, scratch, out + r * ld_out);
}

#if defined(__x86_64__) || defined(__i386__)
/// Scaled scores of four query rows (pointers may repeat for a short block) against keys
/// [j, j + 8 * blocks) of the transposed keys, blocks 1 or 2: 4 or 8 independent FMA chains.
AVX2_INLINE void scores_4rows(const float *const qr[4], const float *kt, int64_t n8, int64_t j, int blocks, int64_t hd,
                              __m256 scale, float *const sr[4]) {
    __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0, b0 = a0, b1 = a0, b2 = a0, b3 = a0;
    if (blocks == 2) {
        for (int64_t d = 0; d < hd; d++) {
            __m256 k0 = _mm256_loadu_ps(kt + d * n8 + j), k1 = _mm256_loadu_ps(kt + d * n8 + j + 8), x;
            x = _mm256_broadcast_ss(qr[0] + d); a0 = _mm256_fmadd_ps(x, k0, a0); b0 = _mm256_fmadd_ps(x, k1, b0);
            x = _mm256_broadcast_ss(qr[1] + d); a1 = _mm256_fmadd_ps(x, k0, a1); b1 = _mm256_fmadd_ps(x, k1, b1);
            x = _mm256_broadcast_ss(qr[2] + d); a2 = _mm256_fmadd_ps(x, k0, a2); b2 = _mm256_fmadd_ps(x, k1, b2);
            x = _mm256_broadcast_ss(qr[3] + d); a3 = _mm256_fmadd_ps(x, k0, a3); b3 = _mm256_fmadd_ps(x, k1, b3);
        }
    } else {
        for (int64_t d = 0; d < hd; d++) {
            __m256 k0 = _mm256_loadu_ps(kt + d * n8 + j);
            a0 = _mm256_fmadd_ps(_mm256_broadcast_ss(qr[0] + d), k0, a0);
            a1 = _mm256_fmadd_ps(_mm256_broadcast_ss(qr[1] + d), k0, a1);
            a2 = _mm256_fmadd_ps(_mm256_broadcast_ss(qr[2] + d), k0, a2);
            a3 = _mm256_fmadd_ps(_mm256_broadcast_ss(qr[3] + d), k0, a3);
        }
    }
    __m256 a[4] = {a0, a1, a2, a3}, b[4] = {b0, b1, b2, b3};
    for (int i = 0; i < 4; i++) {
        _mm256_storeu_ps(sr[i] + j, _mm256_mul_ps(a[i], scale));
        if (blocks == 2) _mm256_storeu_ps(sr[i] + j + 8, _mm256_mul_ps(b[i], scale));
    }
}

/// Softmax of one score row over n real keys in place; the padding up to n8 gets 0. Returns
/// 1 / the sum of the exponentials (the row is left unnormalized).
AVX2_INLINE float softmax_row(float *sr, int64_t n, int64_t n8) {
    float max = -INFINITY;
    for (int64_t j = 0; j < n; j++) max = sr[j] > max ? sr[j] : max;
    for (int64_t j = n; j < n8; j++) sr[j] = -INFINITY;
    __m256 vm = _mm256_set1_ps(max), sum = _mm256_setzero_ps();
    const __m256 floor = _mm256_set1_ps(-87.0f), minus_inf = _mm256_set1_ps(-INFINITY);
    for (int64_t j = 0; j < n8; j += 8) {
        // Padding (-inf) is clamped to exp(-87) for the vector exp, then masked to zero.
        __m256 x = _mm256_loadu_ps(sr + j);
        __m256 valid = _mm256_cmp_ps(x, minus_inf, _CMP_NEQ_OQ);
        __m256 e = _mm256_and_ps(exp_ps(_mm256_max_ps(_mm256_sub_ps(x, vm), floor)), valid);
        _mm256_storeu_ps(sr + j, e);
        sum = _mm256_add_ps(sum, e);
    }
    return 1.0f / hsum_ps(sum);
}

/// out rows = P V / sums for two probability rows (pointers may repeat), 32 output dims at a
/// time: 8 independent FMA chains per key.
AVX2_INLINE void values_2rows(const float *p0, const float *p1, float inv0, float inv1, const float *v, int64_t stride,
                              int64_t n, int64_t hd, float *o0, float *o1) {
    for (int64_t d0 = 0; d0 < hd; d0 += 32) {
        __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0, b0 = a0, b1 = a0, b2 = a0, b3 = a0;
        for (int64_t t = 0; t < n; t++) {
            const float *vt = v + t * stride + d0;
            __m256 v0 = _mm256_loadu_ps(vt), v1 = _mm256_loadu_ps(vt + 8), v2 = _mm256_loadu_ps(vt + 16), v3 = _mm256_loadu_ps(vt + 24);
            __m256 x = _mm256_broadcast_ss(p0 + t), y = _mm256_broadcast_ss(p1 + t);
            a0 = _mm256_fmadd_ps(x, v0, a0); a1 = _mm256_fmadd_ps(x, v1, a1); a2 = _mm256_fmadd_ps(x, v2, a2); a3 = _mm256_fmadd_ps(x, v3, a3);
            b0 = _mm256_fmadd_ps(y, v0, b0); b1 = _mm256_fmadd_ps(y, v1, b1); b2 = _mm256_fmadd_ps(y, v2, b2); b3 = _mm256_fmadd_ps(y, v3, b3);
        }
        __m256 s = _mm256_set1_ps(inv0);
        _mm256_storeu_ps(o0 + d0, _mm256_mul_ps(a0, s)); _mm256_storeu_ps(o0 + d0 + 8, _mm256_mul_ps(a1, s));
        _mm256_storeu_ps(o0 + d0 + 16, _mm256_mul_ps(a2, s)); _mm256_storeu_ps(o0 + d0 + 24, _mm256_mul_ps(a3, s));
        s = _mm256_set1_ps(inv1);
        _mm256_storeu_ps(o1 + d0, _mm256_mul_ps(b0, s)); _mm256_storeu_ps(o1 + d0 + 8, _mm256_mul_ps(b1, s));
        _mm256_storeu_ps(o1 + d0 + 16, _mm256_mul_ps(b2, s)); _mm256_storeu_ps(o1 + d0 + 24, _mm256_mul_ps(b3, s));
    }
}

/// head_dim a multiple of 32.
AVX2_FN static void attend_sequence_avx2(const float *q, const float *k, const float *v, int64_t stride, int64_t n,
                                         int64_t hd, float scale, float *scratch, float *out, int64_t ld_out) {
    int64_t n8 = round8(n);
    float *kt = scratch, *scores = scratch + hd * n8;
    for (int64_t d = 0; d < hd; d++) {
        float *row = kt + d * n8;
        for (int64_t j = 0; j < n; j++) row[j] = k[j * stride + d];
        for (int64_t j = n; j < n8; j++) row[j] = 0;
    }
    const __m256 vs = _mm256_set1_ps(scale);
    float inv[QUERY_BLOCK];
    for (int64_t r0 = 0; r0 < n; r0 += QUERY_BLOCK) {
        int64_t rows = n - r0 < QUERY_BLOCK ? n - r0 : QUERY_BLOCK;
        for (int64_t r = 0; r < rows; r += 4) {
            // A short last block repeats its last row (computed twice, stored to the same place).
            const float *qr[4];
            float *sr[4];
            for (int i = 0; i < 4; i++) {
                int64_t row = r + i < rows ? r + i : rows - 1;
                qr[i] = q + (r0 + row) * stride;
                sr[i] = scores + row * n8;
            }
            int64_t j = 0;
            for (; j + 16 <= n8; j += 16) scores_4rows(qr, kt, n8, j, 2, hd, vs, sr);
            if (j < n8) scores_4rows(qr, kt, n8, j, 1, hd, vs, sr);
        }
        for (int64_t r = 0; r < rows; r++) inv[r] = softmax_row(scores + r * n8, n, n8);
        for (int64_t r = 0; r < rows; r += 2) {
            int64_t r1 = r + 1 < rows ? r + 1 : r;
            values_2rows(scores + r * n8, scores + r1 * n8, inv[r], inv[r1], v, stride, n, hd,
                         out + (r0 + r) * ld_out, out + (r0 + r1) * ld_out);
        }
    }
}
#endif

void od_attend_sequence(const float *q, const float *k, const float *v, int64_t stride, int64_t n, int64_t head_dim,
                        float scale, float *scratch, float *out, int64_t ld_out) {
#if defined(__x86_64__) || defined(__i386__)
    if (odk_has_avx2() && head_dim % 32 == 0) {
        attend_sequence_avx2(q, k, v, stride, n, head_dim, scale, scratch, out, ld_out);
        return;
    }
#endif
    attend_sequence_scalar(q, k, v, stride, n, head_dim, scale, scratch, out, ld_out);
}
