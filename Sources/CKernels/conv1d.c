// Direct f32 1-D convolution for the HiFi-GAN decoder and the flows of VITS voices, which spend
// nearly all their time in convolutions of 32-512 channels over thousands of time steps.
//
// No im2col and no packing: the input is channels-first with each channel's time steps
// contiguous, so a 16-step window of one channel at one tap is two unaligned loads. The 6x16
// register block broadcasts one weight per output row per (tap, input channel) and multiplies it
// into those two vectors: 12 FMAs per 2 loads and 6 broadcasts, FMA-bound on Zen 2 and Haswell.
// The last t_end % 16 steps and the scalar reference use the plain loop.
#include "od_conv1d.h"
#include "ckernels.h"
#include "simd.h"

static void conv_scalar_range(int64_t o_begin, int64_t o_end, int64_t in_ch, int64_t kernel, int64_t dilation,
                              const float *w, const float *bias, const float *x, int64_t ldx,
                              float *out, int64_t ldo, int64_t t_begin, int64_t t_end, int accumulate) {
    for (int64_t o = o_begin; o < o_end; o++) {
        const float *wo = w + o * kernel * in_ch;
        for (int64_t t = t_begin; t < t_end; t++) {
            float s = bias ? bias[o] : 0.0f;
            for (int64_t k = 0; k < kernel; k++) {
                const float *xk = x + t + k * dilation;
                const float *wk = wo + k * in_ch;
                for (int64_t i = 0; i < in_ch; i++) s += wk[i] * xk[i * ldx];
            }
            out[o * ldo + t] = accumulate ? out[o * ldo + t] + s : s;
        }
    }
}

void od_conv1d_scalar(int64_t out_ch, int64_t in_ch, int64_t kernel, int64_t dilation,
                      const float *w, const float *bias, const float *x, int64_t ldx,
                      float *out, int64_t ldo, int64_t t_begin, int64_t t_end, int accumulate) {
    conv_scalar_range(0, out_ch, in_ch, kernel, dilation, w, bias, x, ldx, out, ldo, t_begin, t_end, accumulate);
}

#if defined(__x86_64__) || defined(__i386__)
enum { MR = 6 };

/// rows (<= 6) output channels from o, 16 steps from t.
AVX2_FN static void block_6x16(int rows, int64_t in_ch, int64_t kernel, int64_t dilation, const float *w,
                               const float *bias, const float *x, int64_t ldx, float *out, int64_t ldo,
                               int64_t o, int64_t t, int accumulate) {
    const int64_t wstride = kernel * in_ch;
    const float *wr[MR];
    for (int r = 0; r < MR; r++) wr[r] = w + (o + (r < rows ? r : 0)) * wstride;
    __m256 a00 = _mm256_setzero_ps(), a01 = a00, a10 = a00, a11 = a00, a20 = a00, a21 = a00;
    __m256 a30 = a00, a31 = a00, a40 = a00, a41 = a00, a50 = a00, a51 = a00;
    for (int64_t k = 0; k < kernel; k++) {
        const float *xk = x + t + k * dilation;
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
        if (accumulate) {
            v0 = _mm256_add_ps(v0, _mm256_loadu_ps(dst));
            v1 = _mm256_add_ps(v1, _mm256_loadu_ps(dst + 8));
        }
        _mm256_storeu_ps(dst, v0);
        _mm256_storeu_ps(dst + 8, v1);
    }
}

AVX2_FN static void conv_avx2(int64_t out_ch, int64_t in_ch, int64_t kernel, int64_t dilation,
                              const float *w, const float *bias, const float *x, int64_t ldx,
                              float *out, int64_t ldo, int64_t t_begin, int64_t t_end, int accumulate) {
    const int64_t full_end = t_begin + (t_end - t_begin) / 16 * 16;
    // Time tiles of 64 steps keep the input window of every channel in L1/L2 while all output
    // channel blocks pass over it.
    for (int64_t t0 = t_begin; t0 < full_end; t0 += 64) {
        const int64_t t1 = t0 + 64 < full_end ? t0 + 64 : full_end;
        for (int64_t o = 0; o < out_ch; o += MR) {
            const int rows = out_ch - o < MR ? (int)(out_ch - o) : MR;
            for (int64_t t = t0; t < t1; t += 16)
                block_6x16(rows, in_ch, kernel, dilation, w, bias, x, ldx, out, ldo, o, t, accumulate);
        }
    }
    if (full_end < t_end)
        conv_scalar_range(0, out_ch, in_ch, kernel, dilation, w, bias, x, ldx, out, ldo, full_end, t_end, accumulate);
}
#endif

void od_conv1d(int64_t out_ch, int64_t in_ch, int64_t kernel, int64_t dilation,
               const float *w, const float *bias, const float *x, int64_t ldx,
               float *out, int64_t ldo, int64_t t_begin, int64_t t_end, int accumulate) {
#if defined(__x86_64__) || defined(__i386__)
    if (odk_has_avx2()) {
        conv_avx2(out_ch, in_ch, kernel, dilation, w, bias, x, ldx, out, ldo, t_begin, t_end, accumulate);
        return;
    }
#endif
    od_conv1d_scalar(out_ch, in_ch, kernel, dilation, w, bias, x, ldx, out, ldo, t_begin, t_end, accumulate);
}
