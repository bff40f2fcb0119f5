// Image-network convolution pieces (see od_conv.h). The 1x1 and stem convolutions run through
// od_gemm (the stem after od_im2col_hwc); what is left here is the depthwise filter, whose
// work is small per output (9 or 25 taps) and streams through memory, so the AVX2 body simply
// keeps 8 channels per vector and reads each tap's 8 contiguous HWC values.
#include <math.h>
#include <string.h>
#include "od_conv.h"
#include "od_kernels.h"

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>
#include "simd.h"
#define OD_CONV_X86 1
#endif

static inline float clampf(float v, float lo, float hi) { return v < lo ? lo : (v > hi ? hi : v); }

void od_im2col_hwc(const float *in, int64_t h, int64_t w, int64_t c, int64_t k, int64_t stride,
                   int64_t pad_top, int64_t pad_left, int64_t out_h, int64_t out_w, float *cols,
                   int64_t row_begin, int64_t row_end) {
    (void)out_h;
    const int64_t row_len = k * k * c;
    for (int64_t r = row_begin; r < row_end; r++) {
        const int64_t oy = r / out_w, ox = r % out_w;
        float *dst = cols + r * row_len;
        for (int64_t ky = 0; ky < k; ky++) {
            const int64_t iy = oy * stride - pad_top + ky;
            for (int64_t kx = 0; kx < k; kx++) {
                const int64_t ix = ox * stride - pad_left + kx;
                float *tap = dst + (ky * k + kx) * c;
                if (iy < 0 || iy >= h || ix < 0 || ix >= w) memset(tap, 0, (size_t)c * sizeof(float));
                else memcpy(tap, in + (iy * w + ix) * c, (size_t)c * sizeof(float));
            }
        }
    }
}

void od_conv2d_hwc_scalar(const float *in, int64_t h, int64_t w, int64_t c, const float *weight, const float *bias,
                          int64_t c_out, int64_t k, int64_t stride, int64_t pad_top, int64_t pad_left,
                          int64_t out_h, int64_t out_w, float lo, float hi, float *out) {
    for (int64_t oy = 0; oy < out_h; oy++)
        for (int64_t ox = 0; ox < out_w; ox++)
            for (int64_t co = 0; co < c_out; co++) {
                float acc = 0;
                for (int64_t ky = 0; ky < k; ky++) {
                    const int64_t iy = oy * stride - pad_top + ky;
                    if (iy < 0 || iy >= h) continue;
                    for (int64_t kx = 0; kx < k; kx++) {
                        const int64_t ix = ox * stride - pad_left + kx;
                        if (ix < 0 || ix >= w) continue;
                        const float *px = in + (iy * w + ix) * c, *wt = weight + ((co * k + ky) * k + kx) * c;
                        for (int64_t ci = 0; ci < c; ci++) acc += px[ci] * wt[ci];
                    }
                }
                out[(oy * out_w + ox) * c_out + co] = clampf(acc + (bias ? bias[co] : 0.0f), lo, hi);
            }
}

// One output pixel's channels [c_begin, c_total) in scalar code: the reference, and the
// vector body's tail when the channel count is not a multiple of 8.
static inline void depthwise_pixel_scalar(const float *in, int64_t h, int64_t w, int64_t c, const float *weight,
                                          const float *bias, int64_t k, int64_t iy0, int64_t ix0, float lo, float hi,
                                          float *o, int64_t c_begin) {
    for (int64_t ch = c_begin; ch < c; ch++) {
        float acc = bias ? bias[ch] : 0.0f;
        for (int64_t ky = 0; ky < k; ky++) {
            const int64_t iy = iy0 + ky;
            if (iy < 0 || iy >= h) continue;
            for (int64_t kx = 0; kx < k; kx++) {
                const int64_t ix = ix0 + kx;
                if (ix < 0 || ix >= w) continue;
                acc += in[(iy * w + ix) * c + ch] * weight[(ky * k + kx) * c + ch];
            }
        }
        o[ch] = clampf(acc, lo, hi);
    }
}

void od_depthwise_hwc_scalar(const float *in, int64_t h, int64_t w, int64_t c, const float *weight, const float *bias,
                             int64_t k, int64_t stride, int64_t pad_top, int64_t pad_left, int64_t out_w,
                             float lo, float hi, float *out, int64_t oy_begin, int64_t oy_end) {
    for (int64_t oy = oy_begin; oy < oy_end; oy++)
        for (int64_t ox = 0; ox < out_w; ox++)
            depthwise_pixel_scalar(in, h, w, c, weight, bias, k, oy * stride - pad_top, ox * stride - pad_left,
                                   lo, hi, out + (oy * out_w + ox) * c, 0);
}

#ifdef OD_CONV_X86
AVX2_FN static void depthwise_hwc_avx2(const float *in, int64_t h, int64_t w, int64_t c, const float *weight,
                                       const float *bias, int64_t k, int64_t stride, int64_t pad_top, int64_t pad_left,
                                       int64_t out_w, float lo, float hi, float *out, int64_t oy_begin, int64_t oy_end) {
    const __m256 vlo = _mm256_set1_ps(lo), vhi = _mm256_set1_ps(hi);
    const int64_t c8 = c & ~(int64_t)7;
    for (int64_t oy = oy_begin; oy < oy_end; oy++) {
        const int64_t iy0 = oy * stride - pad_top;
        // Taps that fall inside the image, so the channel loop carries no bounds checks.
        const int64_t ky0 = iy0 < 0 ? -iy0 : 0, ky1 = iy0 + k > h ? h - iy0 : k;
        for (int64_t ox = 0; ox < out_w; ox++) {
            const int64_t ix0 = ox * stride - pad_left;
            const int64_t kx0 = ix0 < 0 ? -ix0 : 0, kx1 = ix0 + k > w ? w - ix0 : k;
            float *o = out + (oy * out_w + ox) * c;
            for (int64_t ch = 0; ch < c8; ch += 8) {
                __m256 acc = bias ? _mm256_loadu_ps(bias + ch) : _mm256_setzero_ps();
                for (int64_t ky = ky0; ky < ky1; ky++) {
                    const float *row = in + ((iy0 + ky) * w + ix0) * c + ch;
                    const float *wr = weight + ky * k * c + ch;
                    for (int64_t kx = kx0; kx < kx1; kx++)
                        acc = _mm256_fmadd_ps(_mm256_loadu_ps(row + kx * c), _mm256_loadu_ps(wr + kx * c), acc);
                }
                _mm256_storeu_ps(o + ch, _mm256_min_ps(_mm256_max_ps(acc, vlo), vhi));
            }
            if (c8 < c) depthwise_pixel_scalar(in, h, w, c, weight, bias, k, iy0, ix0, lo, hi, o, c8);
        }
    }
}

AVX2_FN static void global_avg_pool_avx2(const float *in, int64_t pixels, int64_t c, float *out) {
    const int64_t c8 = c & ~(int64_t)7;
    const __m256 inv = _mm256_set1_ps(1.0f / (float)pixels);
    for (int64_t ch = 0; ch < c8; ch += 8) {
        __m256 s = _mm256_setzero_ps();
        for (int64_t p = 0; p < pixels; p++) s = _mm256_add_ps(s, _mm256_loadu_ps(in + p * c + ch));
        _mm256_storeu_ps(out + ch, _mm256_mul_ps(s, inv));
    }
    for (int64_t ch = c8; ch < c; ch++) {
        float s = 0;
        for (int64_t p = 0; p < pixels; p++) s += in[p * c + ch];
        out[ch] = s / (float)pixels;
    }
}
#endif

void od_depthwise_hwc(const float *in, int64_t h, int64_t w, int64_t c, const float *weight, const float *bias,
                      int64_t k, int64_t stride, int64_t pad_top, int64_t pad_left, int64_t out_w,
                      float lo, float hi, float *out, int64_t oy_begin, int64_t oy_end) {
#ifdef OD_CONV_X86
    if (odk_has_avx2()) {
        depthwise_hwc_avx2(in, h, w, c, weight, bias, k, stride, pad_top, pad_left, out_w, lo, hi, out, oy_begin, oy_end);
        return;
    }
#endif
    od_depthwise_hwc_scalar(in, h, w, c, weight, bias, k, stride, pad_top, pad_left, out_w, lo, hi, out, oy_begin, oy_end);
}

void od_bias_clamp_rows(float *x, const float *bias, int64_t rows, int64_t cols, float lo, float hi) {
    for (int64_t r = 0; r < rows; r++) {
        float *row = x + r * cols;
        if (bias) for (int64_t j = 0; j < cols; j++) row[j] = clampf(row[j] + bias[j], lo, hi);
        else for (int64_t j = 0; j < cols; j++) row[j] = clampf(row[j], lo, hi);
    }
}

void od_global_avg_pool_hwc_scalar(const float *in, int64_t pixels, int64_t c, float *out) {
    for (int64_t ch = 0; ch < c; ch++) {
        double s = 0;
        for (int64_t p = 0; p < pixels; p++) s += in[p * c + ch];
        out[ch] = (float)(s / (double)pixels);
    }
}

void od_global_avg_pool_hwc(const float *in, int64_t pixels, int64_t c, float *out) {
#ifdef OD_CONV_X86
    if (odk_has_avx2()) {
        global_avg_pool_avx2(in, pixels, c, out);
        return;
    }
#endif
    od_global_avg_pool_hwc_scalar(in, pixels, c, out);
}
