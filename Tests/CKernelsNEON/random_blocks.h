// Random inputs for kernel_tiers.c: weight rows of every type with ordinary, extreme or unit
// scales, activation floats of varied magnitude, and unit-scale activation blocks.
#ifndef ONDEVICE_KERNEL_TIERS_RANDOM_H
#define ONDEVICE_KERNEL_TIERS_RANDOM_H
#include <math.h>
#include <stddef.h>
#include "blocks.h"

// ---- random data ------------------------------------------------------------------------

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static uint64_t rnd(void) {  // splitmix64
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static float uniform(float lo, float hi) { return lo + (hi - lo) * (float)(rnd() >> 40) / 16777216.0f; }

static int rnd_int(int lo, int hi) { return lo + (int)(rnd() % (uint64_t)(hi - lo + 1)); }

/// A block scale: mostly ordinary, sometimes the largest half, a subnormal, zero or negative.
static half_t pick_half(int extreme) {
    if (extreme) {
        static const half_t special[] = {0x7BFF, 0xFBFF, 0x0001, 0x03FF, 0x0400, 0x0000, 0x8000, 0x3C00};
        if (rnd() % 3 == 0) return special[rnd() % (sizeof(special) / sizeof(special[0]))];
    }
    return odk_fp32_to_fp16(uniform(-1.0f, 1.0f) * powf(10.0f, uniform(-3.0f, 0.5f)));
}

/// Activation floats in 32-element blocks of varied magnitude: ordinary, large, tiny, all
/// zero, or one spike among small values; ties of the rounding (k + 0.5) in some blocks.
static void fill_activations(float *x, int64_t n) {
    for (int64_t b = 0; b < n; b += 32) {
        int kind = (int)(rnd() % 6);
        int64_t end = b + 32 < n ? b + 32 : n;
        for (int64_t j = b; j < end; j++) {
            switch (kind) {
            case 0: x[j] = uniform(-1, 1); break;
            case 1: x[j] = uniform(-1, 1) * 1e4f; break;
            case 2: x[j] = uniform(-1, 1) * 1e-6f; break;
            case 3: x[j] = 0; break;
            case 4: x[j] = j == b + 7 ? -300.0f : uniform(-0.01f, 0.01f); break;
            default: x[j] = (float)rnd_int(-127, 126) + 0.5f; x[b] = 127.0f; break;
            }
        }
    }
}

// ---- weight types -----------------------------------------------------------------------

typedef struct {
    int32_t type;
    const char *name;
    int block, bytes;       // elements and bytes per block (1 element for float types)
    int half_fields[2];     // byte offsets of half scales (-1: none)
} wtype;

static const wtype types[] = {
    {T_F32, "f32", 1, 4, {-1, -1}},
    {T_F16, "f16", 1, 2, {-1, -1}},
    {T_BF16, "bf16", 1, 2, {-1, -1}},
    {T_Q4_0, "q4_0", 32, sizeof(blk_q4_0), {offsetof(blk_q4_0, d), -1}},
    {T_Q4_1, "q4_1", 32, sizeof(blk_q4_1), {offsetof(blk_q4_1, d), offsetof(blk_q4_1, m)}},
    {T_Q5_0, "q5_0", 32, sizeof(blk_q5_0), {offsetof(blk_q5_0, d), -1}},
    {T_Q5_1, "q5_1", 32, sizeof(blk_q5_1), {offsetof(blk_q5_1, d), offsetof(blk_q5_1, m)}},
    {T_Q8_0, "q8_0", 32, sizeof(blk_q8_0), {offsetof(blk_q8_0, d), -1}},
    {T_Q2_K, "q2_K", 256, sizeof(blk_q2_K), {offsetof(blk_q2_K, d), offsetof(blk_q2_K, dmin)}},
    {T_Q3_K, "q3_K", 256, sizeof(blk_q3_K), {offsetof(blk_q3_K, d), -1}},
    {T_Q4_K, "q4_K", 256, sizeof(blk_q4_K), {offsetof(blk_q4_K, d), offsetof(blk_q4_K, dmin)}},
    {T_Q5_K, "q5_K", 256, sizeof(blk_q5_K), {offsetof(blk_q5_K, d), offsetof(blk_q5_K, dmin)}},
    {T_Q6_K, "q6_K", 256, sizeof(blk_q6_K), {offsetof(blk_q6_K, d), -1}},
};
#define N_TYPES (int)(sizeof(types) / sizeof(types[0]))

static size_t row_bytes(const wtype *t, int64_t cols) { return (size_t)(cols / t->block) * (size_t)t->bytes; }

static void put_half(uint8_t *p, half_t h) { memcpy(p, &h, 2); }

/// One weight row: random codes, scales from pick_half, or all scales 1.0 when `unit`.
static void fill_weights(const wtype *t, uint8_t *w, int64_t cols, int extreme, int unit) {
    if (t->type == T_F32) {
        float *f = (float *)w;
        for (int64_t j = 0; j < cols; j++) f[j] = uniform(-1, 1) * powf(10.0f, uniform(-3, 3));
        return;
    }
    if (t->type == T_F16 || t->type == T_BF16) {
        uint16_t *h = (uint16_t *)w;
        for (int64_t j = 0; j < cols; j++) {
            uint16_t v = (uint16_t)rnd();
            if (t->type == T_F16 && ((v >> 10) & 0x1F) == 0x1F) v &= 0xBFFF;  // no inf/NaN
            if (t->type == T_BF16) {  // finite, |v| in [1e-12, 1e12]
                float f = uniform(-1, 1) * powf(10.0f, uniform(-12, 12));
                uint32_t bits;
                memcpy(&bits, &f, 4);
                v = (uint16_t)(bits >> 16);
            }
            h[j] = v;
        }
        return;
    }
    size_t n = row_bytes(t, cols);
    for (size_t i = 0; i < n; i++) w[i] = (uint8_t)rnd();
    for (int64_t b = 0; b < cols / t->block; b++) {
        uint8_t *blk = w + b * t->bytes;
        for (int f = 0; f < 2; f++)
            if (t->half_fields[f] >= 0) put_half(blk + t->half_fields[f], unit ? 0x3C00 : pick_half(extreme));
    }
}

/// Activation row built directly with unit scales and codes in [-amp, amp], so every dot
/// product is an integer the float accumulators hold exactly.
static void unit_activations(int32_t act, void *dst, int64_t cols, int amp) {
    if (act == T_Q8_K) {
        blk_q8_K *y = dst;
        for (int64_t b = 0; b < cols / QK_K; b++) {
            y[b].d = 1.0f;
            for (int g = 0; g < 16; g++) {
                int s = 0;
                for (int j = 0; j < 16; j++) s += y[b].qs[g * 16 + j] = (int8_t)rnd_int(-amp, amp);
                y[b].bsums[g] = (int16_t)s;
            }
        }
    } else {
        size_t bytes = act == T_Q8_0 ? sizeof(blk_q8_0) : sizeof(blk_q8_1);
        int8_t *qs0 = (int8_t *)dst + (act == T_Q8_0 ? 2 : 4);
        for (int64_t b = 0; b < cols / QK; b++) {
            uint8_t *blk = (uint8_t *)dst + b * bytes;
            int8_t *qs = qs0 + b * bytes;
            int s = 0;
            for (int j = 0; j < QK; j++) s += qs[j] = (int8_t)rnd_int(-amp, amp);
            put_half(blk, 0x3C00);
            if (act == T_Q8_1) put_half(blk + 2, odk_fp32_to_fp16((float)s));
        }
    }
}
#endif
