// Internal: block layouts of ggml's quantized formats (ggml `ggml-common.h`), half-float
// helpers, kernel signatures and tier tables shared by the scalar, AVX2 and NEON units.
#ifndef ONDEVICE_CKERNELS_BLOCKS_H
#define ONDEVICE_CKERNELS_BLOCKS_H
#include <stdint.h>
#include <string.h>
#include "od_kernels.h"

#define QK 32
#define QK_K 256

enum {
    T_F32 = 0, T_F16 = 1, T_Q4_0 = 2, T_Q4_1 = 3, T_Q5_0 = 6, T_Q5_1 = 7, T_Q8_0 = 8, T_Q8_1 = 9,
    T_Q2_K = 10, T_Q3_K = 11, T_Q4_K = 12, T_Q5_K = 13, T_Q6_K = 14, T_Q8_K = 15, T_BF16 = 30,
};

typedef uint16_t half_t;

// 32-element blocks. Element j < 16 sits in the low nibble of qs[j], element j + 16 in the high
// nibble; for the 5-bit formats bit j of qh (little-endian u32) is element j's fifth bit.
typedef struct { half_t d; uint8_t qs[16]; } blk_q4_0;                    // 18 bytes
typedef struct { half_t d, m; uint8_t qs[16]; } blk_q4_1;                 // 20
typedef struct { half_t d; uint8_t qh[4]; uint8_t qs[16]; } blk_q5_0;     // 22
typedef struct { half_t d, m; uint8_t qh[4]; uint8_t qs[16]; } blk_q5_1;  // 24
typedef struct { half_t d; int8_t qs[32]; } blk_q8_0;                     // 34
typedef struct { half_t d, s; int8_t qs[32]; } blk_q8_1;                  // 36, s = d * sum(qs)

// 256-element super-blocks.
typedef struct { uint8_t scales[16]; uint8_t qs[64]; half_t d, dmin; } blk_q2_K;            // 84
typedef struct { uint8_t hmask[32]; uint8_t qs[64]; uint8_t scales[12]; half_t d; } blk_q3_K; // 110
typedef struct { half_t d, dmin; uint8_t scales[12]; uint8_t qs[128]; } blk_q4_K;            // 144
typedef struct { half_t d, dmin; uint8_t scales[12]; uint8_t qh[32]; uint8_t qs[128]; } blk_q5_K; // 176
typedef struct { uint8_t ql[128]; uint8_t qh[64]; int8_t scales[16]; half_t d; } blk_q6_K;   // 210
typedef struct { float d; int8_t qs[256]; int16_t bsums[16]; } blk_q8_K;                     // 292

_Static_assert(sizeof(blk_q4_0) == 18, "q4_0");
_Static_assert(sizeof(blk_q4_1) == 20, "q4_1");
_Static_assert(sizeof(blk_q5_0) == 22, "q5_0");
_Static_assert(sizeof(blk_q5_1) == 24, "q5_1");
_Static_assert(sizeof(blk_q8_0) == 34, "q8_0");
_Static_assert(sizeof(blk_q8_1) == 36, "q8_1");
_Static_assert(sizeof(blk_q2_K) == 84, "q2_K");
_Static_assert(sizeof(blk_q3_K) == 110, "q3_K");
_Static_assert(sizeof(blk_q4_K) == 144, "q4_K");
_Static_assert(sizeof(blk_q5_K) == 176, "q5_K");
_Static_assert(sizeof(blk_q6_K) == 210, "q6_K");
_Static_assert(sizeof(blk_q8_K) == 292, "q8_K");

/// Kernel: dot of `n` elements of a weight row with an activation row.
typedef float (*odk_dot_fn)(int64_t n, const void *w, const void *a);

static inline float h2f(half_t h) { return odk_fp16_to_fp32(h); }

static inline float bf16_to_f32(uint16_t h) {
    uint32_t bits = (uint32_t)h << 16;
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

/// Q4_K/Q5_K: 6-bit scale and min of sub-block j (0..7) packed in 12 bytes. Sub-blocks 0-3 keep
/// their values in the low 6 bits of bytes j and j+4; sub-blocks 4-7 split theirs between a
/// nibble of byte j+4 and the top two bits of bytes j-4 / j.
static inline void kquant_scale_min(int j, const uint8_t *q, int *sc, int *mn) {
    if (j < 4) {
        *sc = q[j] & 63;
        *mn = q[j + 4] & 63;
    } else {
        *sc = (q[j + 4] & 0x0F) | ((q[j - 4] >> 6) << 4);
        *mn = (q[j + 4] >> 4) | ((q[j] >> 6) << 4);
    }
}

/// Q3_K: the 16 signed 6-bit scales (already minus 32). Low nibbles: bytes 0-7 (low half then
/// high half); the top two bits of scale g live in byte 8 + g%4 at bit 2*(g/4).
static inline void q3k_scales(const uint8_t *s, int out[16]) {
    for (int g = 0; g < 16; g++) {
        int lo = g < 8 ? (s[g] & 0x0F) : (s[g - 8] >> 4);
        int hi = (s[8 + (g & 3)] >> (2 * (g >> 2))) & 3;
        out[g] = (lo | (hi << 4)) - 32;
    }
}

/// Four-row kernel: out[r] = dot(row r, a) for rows w, w + rb, w + 2rb, w + 3rb.
typedef void (*odk_dot4_fn)(int64_t n, const void *w, size_t rb, const void *a, float *out);

/// Four rows by two tokens: o0[r] = dot(row r, a), o1[r] = dot(row r, a + ab) for rows w + r*rb.
typedef void (*odk_dot4x2_fn)(int64_t n, const void *w, size_t rb, const void *a, size_t ab, float *o0, float *o1);

/// Two-by-two kernel: out = {dot(w0, a0), dot(w0, a1), dot(w1, a0), dot(w1, a1)} for weight rows
/// w0 = w, w1 = w + wb and activation rows a0 = a, a1 = a + ab.
typedef void (*odk_dot2x2_fn)(int64_t n, const void *w, size_t wb, const void *a, size_t ab, float out[4]);

// Kernel tiers (tier.c), lowest first within each architecture. The AVX-512 tier includes the
// AVX2 one: formats without an AVX-512 kernel keep their AVX2 kernel there.
enum { ODK_TIER_SCALAR, ODK_TIER_AVX2, ODK_TIER_AVX512, ODK_TIER_NEON, ODK_TIER_DOTPROD, ODK_TIER_I8MM };
/// The tier in use: the CPU's best, capped by ONDEVICE_KERNELS; decided at the first call.
int odk_tier(void);
/// The CPU's best tier, ignoring ONDEVICE_KERNELS (for tests).
int odk_cpu_tier(void);
/// `best` capped by the ONDEVICE_KERNELS value `cap` (NULL or unknown: `best`).
int odk_tier_capped(int best, const char *cap);
const char *odk_tier_name(int tier);

// Scalar, AVX2 and NEON kernel tables, indexed by ggml type id (NULL where unsupported or on
// another architecture). `tier` picks the NEON level (ODK_TIER_NEON, _DOTPROD or _I8MM).
odk_dot_fn odk_scalar_kernel(int32_t type);
odk_dot_fn odk_avx2_kernel(int32_t type);
odk_dot4_fn odk_avx2_kernel4(int32_t type);  // NULL: use the one-row kernel
odk_dot4x2_fn odk_avx2_kernel4x2(int32_t type);  // NULL: use the four-row kernel per token
odk_dot4_fn odk_avx512_kernel4(int32_t type);  // the same kernels on the AVX-512 tier
odk_dot4x2_fn odk_avx512_kernel4x2(int32_t type);
odk_dot_fn odk_neon_kernel(int32_t type, int tier);
odk_dot2x2_fn odk_i8mm_kernel2x2(int32_t type);  // NULL: use the one-row kernel

// NEON activation quantizers (bit-identical to the scalar ones) and vector ops; the scalar
// vector ops are the portable twins the public entry points fall back to.
void odk_quantize_q8_0_neon(const float *x, void *dst, int64_t k);
void odk_quantize_q8_1_neon(const float *x, void *dst, int64_t k);
void odk_quantize_q8_K_neon(const float *x, void *dst, int64_t k);
void odk_rms_norm_scalar(const float *x, const float *weight, float *out, int64_t n, float eps);
void odk_softmax_scalar(float *x, int64_t n);
void odk_silu_scalar(const float *x, float *out, int64_t n);
void odk_add_scalar(const float *a, const float *b, float *out, int64_t n);
void odk_mul_scalar(const float *a, const float *b, float *out, int64_t n);
void odk_add_scaled_scalar(const float *x, float s, float *out, int64_t n);
void odk_scale_scalar(float *x, float s, int64_t n);
void odk_rms_norm_neon(const float *x, const float *weight, float *out, int64_t n, float eps);
void odk_softmax_neon(float *x, int64_t n);
void odk_silu_neon(const float *x, float *out, int64_t n);
void odk_add_neon(const float *a, const float *b, float *out, int64_t n);
void odk_mul_neon(const float *a, const float *b, float *out, int64_t n);
void odk_add_scaled_neon(const float *x, float s, float *out, int64_t n);
void odk_scale_neon(float *x, float s, int64_t n);
#endif
