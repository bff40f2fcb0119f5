// Internal: the NEON integer dot kernels, written once and compiled twice by dot_neon.c and
// dot_neon_k.c: once for plain NEON and once for SDOT. The includer defines
//   NAME(x)          the tier's name for kernel x (e.g. x##_neon)
//   TIER_FN          the tier's function attributes
//   DOT8(acc, a, b)  acc (int32x4) += the products of two int8x16 vectors, four per lane
// Per block: exact integer sums, then one float multiply-add, as the scalar and AVX2 kernels.
// No include guard: included once per tier.
#if defined(__aarch64__)

#ifdef NEON_TMPL_BLOCKS32
/// Block of 32 signed codes `lo` (elements 0-15) and `hi` (16-31) against a Q8 block.
#define DOT32(lo, hi, q8) DOT8(DOT8(vdupq_n_s32(0), lo, vld1q_s8(q8)), hi, vld1q_s8((q8) + 16))

TIER_FN static inline int32x4_t NAME(prod_q4_0)(const blk_q4_0 *x, const int8_t *a) {
    uint8x16_t b = vld1q_u8(x->qs);
    int8x16_t lo = vsubq_s8(vreinterpretq_s8_u8(vandq_u8(b, vdupq_n_u8(0x0F))), vdupq_n_s8(8));
    int8x16_t hi = vsubq_s8(vreinterpretq_s8_u8(vshrq_n_u8(b, 4)), vdupq_n_s8(8));
    return DOT32(lo, hi, a);
}

TIER_FN static inline int32x4_t NAME(prod_q4_1)(const blk_q4_1 *x, const int8_t *a) {
    uint8x16_t b = vld1q_u8(x->qs);
    int8x16_t lo = vreinterpretq_s8_u8(vandq_u8(b, vdupq_n_u8(0x0F)));
    int8x16_t hi = vreinterpretq_s8_u8(vshrq_n_u8(b, 4));
    return DOT32(lo, hi, a);
}

/// Q5 codes 0..31 minus `offset`: nibbles plus the fifth bits from qh.
#define Q5_CODES(x, offset, lo, hi)                                                            \
    uint32_t qh_;                                                                              \
    memcpy(&qh_, (x)->qh, 4);                                                                  \
    uint8x16_t b_ = vld1q_u8((x)->qs);                                                         \
    int8x16_t lo = vsubq_s8(vreinterpretq_s8_u8(vorrq_u8(vandq_u8(b_, vdupq_n_u8(0x0F)),       \
                                                         fifth_bits16(qh_))), vdupq_n_s8(offset)); \
    int8x16_t hi = vsubq_s8(vreinterpretq_s8_u8(vorrq_u8(vshrq_n_u8(b_, 4), fifth_bits16(qh_ >> 16))), \
                            vdupq_n_s8(offset))

TIER_FN static inline int32x4_t NAME(prod_q5_0)(const blk_q5_0 *x, const int8_t *a) {
    Q5_CODES(x, 16, lo, hi);
    return DOT32(lo, hi, a);
}

TIER_FN static inline int32x4_t NAME(prod_q5_1)(const blk_q5_1 *x, const int8_t *a) {
    Q5_CODES(x, 0, lo, hi);
    return DOT32(lo, hi, a);
}

TIER_FN static inline int32x4_t NAME(prod_q8_0)(const blk_q8_0 *x, const int8_t *a) {
    return DOT32(vld1q_s8(x->qs), vld1q_s8(x->qs + 16), a);
}

// Formats with one scale per block: two blocks per iteration into two accumulators, so the
// float multiply-adds of consecutive blocks do not wait on each other.
#define DOT_SYMMETRIC(kernel, wblk, prod)                                                      \
    TIER_FN static float NAME(kernel)(int64_t n, const void *w, const void *a) {                \
        const wblk *x = w;                                                                     \
        const blk_q8_0 *y = a;                                                                 \
        int64_t nb = n / QK, i = 0;                                                            \
        float32x4_t acc0 = vdupq_n_f32(0), acc1 = vdupq_n_f32(0);                              \
        for (; i + 2 <= nb; i += 2) {                                                          \
            int32x4_t p0 = NAME(prod)(&x[i], y[i].qs), p1 = NAME(prod)(&x[i + 1], y[i + 1].qs); \
            acc0 = vfmaq_n_f32(acc0, vcvtq_f32_s32(p0), f16_to_f32(x[i].d) * f16_to_f32(y[i].d)); \
            acc1 = vfmaq_n_f32(acc1, vcvtq_f32_s32(p1),                                        \
                               f16_to_f32(x[i + 1].d) * f16_to_f32(y[i + 1].d));                \
        }                                                                                      \
        if (i < nb)                                                                            \
            acc0 = vfmaq_n_f32(acc0, vcvtq_f32_s32(NAME(prod)(&x[i], y[i].qs)),                \
                               f16_to_f32(x[i].d) * f16_to_f32(y[i].d));                        \
        return vaddvq_f32(vaddq_f32(acc0, acc1));                                              \
    }

// Formats with a min: d_w * d_a * products + m_w * s_a.
#define DOT_WITH_MIN(kernel, wblk, prod)                                                       \
    TIER_FN static float NAME(kernel)(int64_t n, const void *w, const void *a) {                \
        const wblk *x = w;                                                                     \
        const blk_q8_1 *y = a;                                                                 \
        int64_t nb = n / QK, i = 0;                                                            \
        float32x4_t acc0 = vdupq_n_f32(0), acc1 = vdupq_n_f32(0);                              \
        float mins = 0;                                                                        \
        for (; i + 2 <= nb; i += 2) {                                                          \
            int32x4_t p0 = NAME(prod)(&x[i], y[i].qs), p1 = NAME(prod)(&x[i + 1], y[i + 1].qs); \
            acc0 = vfmaq_n_f32(acc0, vcvtq_f32_s32(p0), f16_to_f32(x[i].d) * f16_to_f32(y[i].d)); \
            acc1 = vfmaq_n_f32(acc1, vcvtq_f32_s32(p1),                                        \
                               f16_to_f32(x[i + 1].d) * f16_to_f32(y[i + 1].d));                \
            mins += f16_to_f32(x[i].m) * f16_to_f32(y[i].s) +                                  \
                    f16_to_f32(x[i + 1].m) * f16_to_f32(y[i + 1].s);                            \
        }                                                                                      \
        if (i < nb) {                                                                          \
            acc0 = vfmaq_n_f32(acc0, vcvtq_f32_s32(NAME(prod)(&x[i], y[i].qs)),                \
                               f16_to_f32(x[i].d) * f16_to_f32(y[i].d));                        \
            mins += f16_to_f32(x[i].m) * f16_to_f32(y[i].s);                                   \
        }                                                                                      \
        return vaddvq_f32(vaddq_f32(acc0, acc1)) + mins;                                       \
    }

DOT_SYMMETRIC(dot_q4_0, blk_q4_0, prod_q4_0)
DOT_SYMMETRIC(dot_q5_0, blk_q5_0, prod_q5_0)
DOT_SYMMETRIC(dot_q8_0, blk_q8_0, prod_q8_0)
DOT_WITH_MIN(dot_q4_1, blk_q4_1, prod_q4_1)
DOT_WITH_MIN(dot_q5_1, blk_q5_1, prod_q5_1)
#undef DOT_SYMMETRIC
#undef DOT_WITH_MIN
#undef DOT32
#undef Q5_CODES
#endif  // NEON_TMPL_BLOCKS32

#ifdef NEON_TMPL_KQUANTS
/// isum (4 lanes) += scale[g] * <q_g, a_g> for four consecutive 16-element groups q0..q3
/// against 64 activations; `sc` holds the four groups' scales.
TIER_FN static inline int32x4_t NAME(groups4)(int32x4_t isum, int8x16_t q0, int8x16_t q1,
                                             int8x16_t q2, int8x16_t q3, const int8_t *a,
                                             int32x4_t sc) {
    int32x4_t z = vdupq_n_s32(0);
    int32x4_t p0 = DOT8(z, q0, vld1q_s8(a)), p1 = DOT8(z, q1, vld1q_s8(a + 16));
    int32x4_t p2 = DOT8(z, q2, vld1q_s8(a + 32)), p3 = DOT8(z, q3, vld1q_s8(a + 48));
    // Pairwise adds leave lane g holding group g's whole sum.
    return vmlaq_s32(isum, vpaddq_s32(vpaddq_s32(p0, p1), vpaddq_s32(p2, p3)), sc);
}

TIER_FN static float NAME(dot_q2_K)(int64_t n, const void *w, const void *a) {
    const blk_q2_K *x = w;
    const blk_q8_K *y = a;
    float acc = 0, mins = 0;
    const uint8x16_t m3 = vdupq_n_u8(3);
    for (int64_t i = 0; i < n / QK_K; i++) {
        uint8x16_t raw = vld1q_u8(x[i].scales);
        int32x4_t sc[4];
        widen_scales(vreinterpretq_s8_u8(vandq_u8(raw, vdupq_n_u8(0x0F))), sc);
        int msum = weighted_bsums(vreinterpretq_s8_u8(vshrq_n_u8(raw, 4)), y[i].bsums);
        int32x4_t isum = vdupq_n_s32(0);
        for (int half = 0; half < 2; half++) {
            uint8x16_t q0 = vld1q_u8(x[i].qs + 32 * half), q1 = vld1q_u8(x[i].qs + 32 * half + 16);
            const int8_t *ay = y[i].qs + 128 * half;
            // Shifts 0, 2 (groups 0-3 of the half), then 4, 6 (groups 4-7).
            isum = NAME(groups4)(isum, vreinterpretq_s8_u8(vandq_u8(q0, m3)), vreinterpretq_s8_u8(vandq_u8(q1, m3)),
                                 vreinterpretq_s8_u8(vandq_u8(vshrq_n_u8(q0, 2), m3)),
                                 vreinterpretq_s8_u8(vandq_u8(vshrq_n_u8(q1, 2), m3)), ay, sc[2 * half]);
            isum = NAME(groups4)(isum, vreinterpretq_s8_u8(vandq_u8(vshrq_n_u8(q0, 4), m3)),
                                 vreinterpretq_s8_u8(vandq_u8(vshrq_n_u8(q1, 4), m3)),
                                 vreinterpretq_s8_u8(vshrq_n_u8(q0, 6)), vreinterpretq_s8_u8(vshrq_n_u8(q1, 6)),
                                 ay + 64, sc[2 * half + 1]);
        }
        float da = y[i].d;
        acc += da * f16_to_f32(x[i].d) * (float)vaddvq_s32(isum);
        mins += da * f16_to_f32(x[i].dmin) * (float)msum;
    }
    return acc - mins;
}

TIER_FN static float NAME(dot_q3_K)(int64_t n, const void *w, const void *a) {
    const blk_q3_K *x = w;
    const blk_q8_K *y = a;
    float acc = 0;
    const uint8x16_t m3 = vdupq_n_u8(3), m4 = vdupq_n_u8(4);
    for (int64_t i = 0; i < n / QK_K; i++) {
        int32x4_t sc[4];
        widen_scales(q3k_scales_i8(x[i].scales), sc);
        uint8x16_t hm0 = vld1q_u8(x[i].hmask), hm1 = vld1q_u8(x[i].hmask + 16);
        int32x4_t isum = vdupq_n_s32(0);
        for (int half = 0; half < 2; half++) {
            uint8x16_t q0 = vld1q_u8(x[i].qs + 32 * half), q1 = vld1q_u8(x[i].qs + 32 * half + 16);
            const int8_t *ay = y[i].qs + 128 * half;
            int8x16_t c[8];
            // Chunk j: 2 bits at shift 2j; a clear hmask bit (4 * half + j) subtracts 4.
            for (int j = 0; j < 4; j++) {
                uint8x16_t lo0 = vandq_u8(vshlq_u8(q0, vdupq_n_s8((int8_t)(-2 * j))), m3);
                uint8x16_t lo1 = vandq_u8(vshlq_u8(q1, vdupq_n_s8((int8_t)(-2 * j))), m3);
                uint8x16_t bit = vdupq_n_u8((uint8_t)(1u << (4 * half + j)));
                uint8x16_t h0 = vbicq_u8(m4, vtstq_u8(hm0, bit)), h1 = vbicq_u8(m4, vtstq_u8(hm1, bit));
                c[2 * j] = vsubq_s8(vreinterpretq_s8_u8(lo0), vreinterpretq_s8_u8(h0));
                c[2 * j + 1] = vsubq_s8(vreinterpretq_s8_u8(lo1), vreinterpretq_s8_u8(h1));
            }
            isum = NAME(groups4)(isum, c[0], c[1], c[2], c[3], ay, sc[2 * half]);
            isum = NAME(groups4)(isum, c[4], c[5], c[6], c[7], ay + 64, sc[2 * half + 1]);
        }
        acc += y[i].d * f16_to_f32(x[i].d) * (float)vaddvq_s32(isum);
    }
    return acc;
}

/// Q4_K/Q5_K: scales of sub-blocks 2c, 2c+1 (32 elements each) as the four 16-group lanes.
TIER_FN static inline int32x4_t NAME(pair_scales)(const uint8_t sc8[16], int c) {
    int32_t v[4] = {sc8[2 * c], sc8[2 * c], sc8[2 * c + 1], sc8[2 * c + 1]};
    return vld1q_s32(v);
}

// Q4_K and Q5_K: one scale and one min per 32 elements; CHUNK_CODES decodes a 64-element chunk.
#define DOT_KQUANT_MIN(kernel, wblk, chunk_codes)                                              \
    TIER_FN static float NAME(kernel)(int64_t n, const void *w, const void *a) {                \
        const wblk *x = w;                                                                     \
        const blk_q8_K *y = a;                                                                 \
        float acc = 0, mins = 0;                                                               \
        for (int64_t i = 0; i < n / QK_K; i++) {                                               \
            uint8x16_t scmn = kquant_scales_mins(x[i].scales);                                 \
            uint8_t sc8[16];                                                                   \
            vst1q_u8(sc8, scmn);                                                               \
            int msum = kquant_min_sum(scmn, y[i].bsums);                                       \
            int32x4_t isum = vdupq_n_s32(0);                                                   \
            for (int c = 0; c < 4; c++) {                                                      \
                int8x16_t q[4];                                                                \
                chunk_codes(&x[i], c, q);                                                      \
                isum = NAME(groups4)(isum, q[0], q[1], q[2], q[3], y[i].qs + 64 * c,           \
                                     NAME(pair_scales)(sc8, c));                               \
            }                                                                                  \
            float da = y[i].d;                                                                 \
            acc += da * f16_to_f32(x[i].d) * (float)vaddvq_s32(isum);                          \
            mins += da * f16_to_f32(x[i].dmin) * (float)msum;                                  \
        }                                                                                      \
        return acc - mins;                                                                     \
    }

DOT_KQUANT_MIN(dot_q4_K, blk_q4_K, q4k_chunk_codes)
DOT_KQUANT_MIN(dot_q5_K, blk_q5_K, q5k_chunk_codes)
#undef DOT_KQUANT_MIN

TIER_FN static float NAME(dot_q6_K)(int64_t n, const void *w, const void *a) {
    const blk_q6_K *x = w;
    const blk_q8_K *y = a;
    float acc = 0;
    for (int64_t i = 0; i < n / QK_K; i++) {
        int32x4_t sc[4];
        widen_scales(vld1q_s8(x[i].scales), sc);
        int32x4_t isum = vdupq_n_s32(0);
        for (int half = 0; half < 2; half++) {
            int8x16_t u[8];
            q6k_half_codes(&x[i], half, u);
            const int8_t *ay = y[i].qs + 128 * half;
            isum = NAME(groups4)(isum, u[0], u[1], u[2], u[3], ay, sc[2 * half]);
            isum = NAME(groups4)(isum, u[4], u[5], u[6], u[7], ay + 64, sc[2 * half + 1]);
        }
        acc += y[i].d * f16_to_f32(x[i].d) * (float)vaddvq_s32(isum);
    }
    return acc;
}
#endif  // NEON_TMPL_KQUANTS
#endif
