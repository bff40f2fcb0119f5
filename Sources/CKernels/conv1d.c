// Direct f32 1-D convolution for the HiFi-GAN decoder and the flows of VITS voices, which spend
// nearly all their time in convolutions of 32-512 channels over thousands of time steps.
//
// No im2col: for each tile of TW output steps, the input window every tap of the tile reads
// (TW + span steps of every channel, zeros outside the sequence) is copied into one contiguous
// buffer. Channel rows of a long utterance are hundreds of KB apart, so reading them in place
// costs a TLB miss per channel per tap; the packed window stays in L1/L2 and also provides the
// zero padding. The 6x16 register block then broadcasts one weight per output row per (tap,
// input channel) and multiplies it into two 8-wide input vectors: 12 FMAs per 2 loads and 6
// broadcasts; rows left over after whole 6-row blocks go through a 2x32 block (8 FMAs per 4
// loads and 2 broadcasts) rather than a mostly idle 6-row one. Every output sums its taps and
// input channels in the same order in either block, so results do not depend on the split.
// The scalar reference beside it is the plain loop.
#include <stdlib.h>
#include <string.h>
#include "od_conv1d.h"
#include "od_kernels.h"
#include "simd.h"

void od_conv1d_scalar(int64_t out_ch, int64_t in_ch, int64_t kernel, int64_t dilation, int64_t pad_left, float in_slope,
                      const float *w, const float *bias, const float *residual, const float *x, int64_t ldx, int64_t x_len,
                      float *out, int64_t ldo, int64_t t_begin, int64_t t_end, int accumulate) {
    for (int64_t o = 0; o < out_ch; o++) {
        const float *wo = w + o * kernel * in_ch;
        for (int64_t t = t_begin; t < t_end; t++) {
            float s = bias ? bias[o] : 0.0f;
            for (int64_t k = 0; k < kernel; k++) {
                const int64_t src = t + k * dilation - pad_left;
                if (src < 0 || src >= x_len) continue;
                const float *wk = wo + k * in_ch;
                for (int64_t i = 0; i < in_ch; i++) {
                    const float v = x[i * ldx + src];
                    s += wk[i] * (v < 0 ? v * in_slope : v);
                }
            }
            if (residual) s += residual[o * ldo + t];
            out[o * ldo + t] = accumulate ? out[o * ldo + t] + s : s;
        }
    }
}

#if defined(__x86_64__) || defined(__i386__)
enum { MR = 6, TW = 128 };

/// rows (<= 6) output channels from o, cols (<= 16) steps from t; xt: the packed window at step t.
AVX2_FN static void block_6x16(int rows, int cols, int64_t in_ch, int64_t kernel, int64_t dilation, const float *w,
                               const float *bias, const float *residual, const float *xt, int64_t ldx, float *out, int64_t ldo,
                               int64_t o, int64_t t, int accumulate) {
    const int64_t wstride = kernel * in_ch;
    const float *wr[MR];
    for (int r = 0; r < MR; r++) wr[r] = w + (o + (r < rows ? r : 0)) * wstride;
    __m256 a00 = _mm256_setzero_ps(), a01 = a00, a10 = a00, a11 = a00, a20 = a00, a21 = a00;
    __m256 a30 = a00, a31 = a00, a40 = a00, a41 = a00, a50 = a00, a51 = a00;
    for (int64_t k = 0; k < kernel; k++) {
        const float *xk = xt + k * dilation;
        const int64_t wk = k * in_ch;
        for (int64_t i = 0; i < in_ch; i++) {
            const float *xi = xk + i * ldx;
            __m256 x0 = _mm256_loadu_ps(xi), x1 = _mm256_loadu_ps(xi + 8);
            __m256 b;
            b = _mm256_broadcast_ss(wr[0] + wk + i); a00 = _mm256_fmadd_ps(b, x0, a00); a01 = _mm256_fmadd_ps(b, x1, a01);
            b = _mm256_broadcast_ss(wr[1] + wk + i); a10 = _mm256_fmadd_ps(b, x0, a10); a11 = _mm256_fmadd_ps(b, x1, a11);
            b = _mm256_broadcast_ss(wr[2] + wk + i); a20 = _mm256_fmadd_ps(b, x0, a20); a21 = _mm256_fmadd_ps(b, x1, a21);
            b = _mm256_broadcast_ss(wr[3] + wk + i); a30 = _mm256_fmadd_ps(b, x0, a30); a31 = _mm256_fmadd_ps(b, x1, a31);
            b = _mm256_broadcast_ss(wr[4] + wk + i); a40 = _mm256_fmadd_ps(b, x0, a40); a41 = _mm256_fmadd_ps(b, x1, a41);
            b = _mm256_broadcast_ss(wr[5] + wk + i); a50 = _mm256_fmadd_ps(b, x0, a50); a51 = _mm256_fmadd_ps(b, x1, a51);
        }
    }
    __m256 acc[MR][2] = {{a00, a01}, {a10, a11}, {a20, a21}, {a30, a31}, {a40, a41}, {a50, a51}};
    for (int r = 0; r < rows; r++) {
        float *dst = out + (o + r) * ldo + t;
        __m256 bv = _mm256_set1_ps(bias ? bias[o + r] : 0.0f);
        __m256 v0 = _mm256_add_ps(acc[r][0], bv), v1 = _mm256_add_ps(acc[r][1], bv);
        const float *res = residual ? residual + (o + r) * ldo + t : NULL;
        if (cols == 16) {
            if (res) {
                v0 = _mm256_add_ps(v0, _mm256_loadu_ps(res));
                v1 = _mm256_add_ps(v1, _mm256_loadu_ps(res + 8));
            }
            if (accumulate) {
                v0 = _mm256_add_ps(v0, _mm256_loadu_ps(dst));
                v1 = _mm256_add_ps(v1, _mm256_loadu_ps(dst + 8));
            }
            _mm256_storeu_ps(dst, v0);
            _mm256_storeu_ps(dst + 8, v1);
        } else {
            float tmp[16];
            _mm256_storeu_ps(tmp, v0);
            _mm256_storeu_ps(tmp + 8, v1);
            for (int c = 0; c < cols; c++) {
                float v = res ? tmp[c] + res[c] : tmp[c];
                dst[c] = accumulate ? dst[c] + v : v;
            }
        }
    }
}

/// rows (<= 2) output channels from o, cols (<= 32) steps from t: the leftover rows when the
/// channel count is not a multiple of 6 (32 = 5·6 + 2, 64 = 10·6 + 4, and conv_post's single
/// row), which a 6-row block would compute at a third of its speed or less.
AVX2_FN static void block_2x32(int rows, int cols, int64_t in_ch, int64_t kernel, int64_t dilation, const float *w,
                               const float *bias, const float *residual, const float *xt, int64_t ldx, float *out, int64_t ldo,
                               int64_t o, int64_t t, int accumulate) {
    const int64_t wstride = kernel * in_ch;
    const float *w0 = w + o * wstride, *w1 = w + (o + (rows > 1 ? 1 : 0)) * wstride;
    __m256 a00 = _mm256_setzero_ps(), a01 = a00, a02 = a00, a03 = a00, a10 = a00, a11 = a00, a12 = a00, a13 = a00;
    for (int64_t k = 0; k < kernel; k++) {
        const float *xk = xt + k * dilation;
        const int64_t wk = k * in_ch;
        for (int64_t i = 0; i < in_ch; i++) {
            const float *xi = xk + i * ldx;
            __m256 x0 = _mm256_loadu_ps(xi), x1 = _mm256_loadu_ps(xi + 8), x2 = _mm256_loadu_ps(xi + 16), x3 = _mm256_loadu_ps(xi + 24);
            __m256 b = _mm256_broadcast_ss(w0 + wk + i);
            a00 = _mm256_fmadd_ps(b, x0, a00); a01 = _mm256_fmadd_ps(b, x1, a01); a02 = _mm256_fmadd_ps(b, x2, a02); a03 = _mm256_fmadd_ps(b, x3, a03);
            b = _mm256_broadcast_ss(w1 + wk + i);
            a10 = _mm256_fmadd_ps(b, x0, a10); a11 = _mm256_fmadd_ps(b, x1, a11); a12 = _mm256_fmadd_ps(b, x2, a12); a13 = _mm256_fmadd_ps(b, x3, a13);
        }
    }
    __m256 acc[2][4] = {{a00, a01, a02, a03}, {a10, a11, a12, a13}};
    for (int r = 0; r < rows; r++) {
        float *dst = out + (o + r) * ldo + t;
        const __m256 bv = _mm256_set1_ps(bias ? bias[o + r] : 0.0f);
        const float *res = residual ? residual + (o + r) * ldo + t : NULL;
        float tmp[32];
        for (int v = 0; v < 4; v++) _mm256_storeu_ps(tmp + 8 * v, _mm256_add_ps(acc[r][v], bv));
        for (int c = 0; c < cols; c++) {
            float y = res ? tmp[c] + res[c] : tmp[c];
            dst[c] = accumulate ? dst[c] + y : y;
        }
    }
}

/// Copies steps [s0, s0 + width) of every channel into buf (row stride width), zeros outside [0, x_len).
/// With slope < 1 the copy also applies the leaky ReLU max(v, slope * v) (0 <= slope <= 1).
AVX2_FN static void pack_window(const float *x, int64_t ldx, int64_t x_len, int64_t in_ch, int64_t s0, int64_t width,
                                float slope, float *buf) {
    const int64_t lo = s0 < 0 ? -s0 : 0;                                   // leading zeros
    const int64_t hi = s0 + width > x_len ? (x_len > s0 ? x_len - s0 : 0) : width;  // end of real data
    for (int64_t i = 0; i < in_ch; i++) {
        float *row = buf + i * width;
        if (lo > 0) memset(row, 0, (size_t)(lo < width ? lo : width) * sizeof(float));
        if (hi > lo) memcpy(row + lo, x + i * ldx + s0 + lo, (size_t)(hi - lo) * sizeof(float));
        int64_t z = hi > lo ? hi : (lo < width ? lo : width);
        if (z < width) memset(row + z, 0, (size_t)(width - z) * sizeof(float));
        if (slope != 1.0f && hi > lo) {
            const __m256 sv = _mm256_set1_ps(slope);
            int64_t u = lo;
            for (; u + 8 <= hi; u += 8) {
                __m256 v = _mm256_loadu_ps(row + u);
                _mm256_storeu_ps(row + u, _mm256_max_ps(v, _mm256_mul_ps(v, sv)));
            }
            for (; u < hi; u++) row[u] = row[u] < 0 ? row[u] * slope : row[u];
        }
    }
}

AVX2_FN static void conv_avx2(int64_t out_ch, int64_t in_ch, int64_t kernel, int64_t dilation, int64_t pad_left, float in_slope,
                              const float *w, const float *bias, const float *residual, const float *x, int64_t ldx, int64_t x_len,
                              float *out, int64_t ldo, int64_t t_begin, int64_t t_end, int accumulate, float *buf) {
    const int64_t span = (kernel - 1) * dilation;
    for (int64_t t0 = t_begin; t0 < t_end; t0 += TW) {
        const int64_t steps = t_end - t0 < TW ? t_end - t0 : TW;
        const int64_t width = (steps + 31) / 32 * 32 + span;  // whole 16- and 32-step blocks, zero beyond
        pack_window(x, ldx, x_len, in_ch, t0 - pad_left, width, in_slope, buf);
        const int64_t full = out_ch / MR * MR;  // rows in whole 6-row blocks; the rest in 2-row blocks
        for (int64_t o = full; o < out_ch; o += 2) {
            const int rows = out_ch - o < 2 ? 1 : 2;
            for (int64_t lt = 0; lt < steps; lt += 32) {
                const int cols = steps - lt < 32 ? (int)(steps - lt) : 32;
                block_2x32(rows, cols, in_ch, kernel, dilation, w, bias, residual, buf + lt, width, out, ldo, o, t0 + lt, accumulate);
            }
        }
        for (int64_t o = 0; o < full; o += MR) {
            const int rows = MR;
            for (int64_t lt = 0; lt < steps; lt += 16) {
                const int cols = steps - lt < 16 ? (int)(steps - lt) : 16;
                block_6x16(rows, cols, in_ch, kernel, dilation, w, bias, residual, buf + lt, width, out, ldo, o, t0 + lt, accumulate);
            }
        }
    }
}
#endif

void od_conv1d(int64_t out_ch, int64_t in_ch, int64_t kernel, int64_t dilation, int64_t pad_left, float in_slope,
               const float *w, const float *bias, const float *residual, const float *x, int64_t ldx, int64_t x_len,
               float *out, int64_t ldo, int64_t t_begin, int64_t t_end, int accumulate) {
#if defined(__x86_64__) || defined(__i386__)
    if (odk_has_avx2() && t_end > t_begin) {
        const int64_t span = (kernel - 1) * dilation;
        float *buf = malloc((size_t)in_ch * (size_t)(TW + span) * sizeof(float));  // TW is a multiple of 32
        if (buf) {
            conv_avx2(out_ch, in_ch, kernel, dilation, pad_left, in_slope, w, bias, residual, x, ldx, x_len, out, ldo, t_begin, t_end, accumulate, buf);
            free(buf);
            return;
        }
    }
#endif
    od_conv1d_scalar(out_ch, in_ch, kernel, dilation, pad_left, in_slope, w, bias, residual, x, ldx, x_len, out, ldo, t_begin, t_end, accumulate);
}
