// Internal: matrix-vector kernels for several tokens at once (a batched decode step), for the
// 32-element formats, included once per x86 tier (dot_batch_avx2.c, dot_batch_avx512.c).
//
// The pair and four-row kernels (dot4_avx2.c) give every token its own 8-lane accumulator, so
// each extra token costs a conversion, a scale product and an FMA per block and row: 8 tokens
// cost 7.9 passes of one on a Q4_1 576x1536 matrix. Here the activations of up to 8 tokens are
// first laid out token-major per 4-element group (batch_block: lane t of group g holds token
// t's elements 4g..4g+3), and each weight group is broadcast to all 8 lanes, so one u8 x s8 dot
// per group adds that group to every token at once and lane t ends the block holding token t's
// integer sum. The per-block float work (convert, scale, FMA) is then done once for 8 tokens.
// The broadcast is an in-lane dword shuffle of a register repeating the group's 16-byte half
// (HALVES), not a cross-lane vpermd: on a Q4_1 1536x576 matrix 8 tokens took 0.060 ms against
// 0.082 ms with vpermd (AVX-512 tier, one thread), 2.6 passes of one token where it was 3.6.
//
// The includer defines KFN (function attributes), KINL (inline helper attributes), DPB(acc, u,
// a) (acc + the 4-byte u8 x s8 dot of each int32 lane), BATCH_Q8_0_OFFSET (1: Q8_0 codes shifted
// to u8 by +128 and the panel's sum term corrects it; 0: the sign trick) and NAME(x).
#include "batch.h"
#include "blocks32_avx2.h"
#if defined(__x86_64__) || defined(__i386__)

/// The 32 codes of a block as two registers that each repeat one 16-byte half in both 128-bit
/// lanes (lo: elements 0-15, groups 0-3; hi: elements 16-31, groups 4-7), so an in-lane dword
/// shuffle broadcasts any group to all eight lanes. A cross-lane vpermd per group issues on one
/// port and was the kernel's bottleneck; the shuffles issue on two.
#define HALVES(u, lo, hi)                                                                      \
    __m256i lo = _mm256_permute4x64_epi64((u), 0x44), hi = _mm256_permute4x64_epi64((u), 0xEE);
/// Dword s (0-3) of each 128-bit lane of `v`, in all four dwords of that lane.
#define SPLAT(v, s) _mm256_shuffle_epi32((v), (s) * 0x55)
#define PANEL(p, g) _mm256_load_si256((const __m256i *)(p)->q[g])
/// One row against the 8 tokens of a panel block: `isum` (int32 per token) from the halves.
#define GROUPS_U8(lo, hi, p, isum)                                                             \
    isum = DPB(isum, SPLAT(lo, 0), PANEL(p, 0));                                               \
    isum = DPB(isum, SPLAT(lo, 1), PANEL(p, 1));                                               \
    isum = DPB(isum, SPLAT(lo, 2), PANEL(p, 2));                                               \
    isum = DPB(isum, SPLAT(lo, 3), PANEL(p, 3));                                               \
    isum = DPB(isum, SPLAT(hi, 0), PANEL(p, 4));                                               \
    isum = DPB(isum, SPLAT(hi, 1), PANEL(p, 5));                                               \
    isum = DPB(isum, SPLAT(hi, 2), PANEL(p, 6));                                               \
    isum = DPB(isum, SPLAT(hi, 3), PANEL(p, 7));
/// Row r's block i against the panel block: its weight block `x` and integer sums `isum`.
#define ROW_SUMS(wblk, codes)                                                                  \
    const wblk *x = (const wblk *)((const char *)w + r * rb) + i;                              \
    _mm_prefetch((const char *)x + 4 * rb, _MM_HINT_T0);                                       \
    codes(x, lo, hi)                                                                           \
    __m256i isum = _mm256_setzero_si256();                                                     \
    GROUPS_U8(lo, hi, p, isum)
// The kernel proper takes 4 rows, or 1-3 at the end of a range: a constant row count for the
// full groups lets the compiler keep every accumulator in a register.
#define BATCH_ROWS(base)                                                                       \
    static KFN void NAME(base)(int64_t nb, const void *w, size_t rb, int nr, const batch_block *p, \
                               float out[4][8]) {                                              \
        if (nr == 4) NAME(base##_n)(nb, w, rb, 4, p, out);                                     \
        else if (nr == 3) NAME(base##_n)(nb, w, rb, 3, p, out);                                \
        else if (nr == 2) NAME(base##_n)(nb, w, rb, 2, p, out);                                \
        else NAME(base##_n)(nb, w, rb, 1, p, out);                                             \
    }

// Formats with one scale and an unsigned code offset (Q4_0: 8, Q5_0: 16; Q8_0 +128 in the
// offset form): lane t = d_w * d_t * (sum u a - off * sum a); the panel's `m` holds off * sum a.
#define BATCH_SYMMETRIC(base, wblk, codes)                                                     \
    KINL void NAME(base##_n)(int64_t nb, const void *w, size_t rb, const int nr,               \
                             const batch_block *p, float out[4][8]) {                          \
        __m256 acc[4];                                                                         \
        for (int r = 0; r < 4; r++) acc[r] = _mm256_setzero_ps();                               \
        for (int64_t i = 0; i < nb; i++, p++) {                                                \
            __m256 pd = _mm256_load_ps(p->d);                                                  \
            __m256i pm = _mm256_load_si256((const __m256i *)p->m);                             \
            for (int r = 0; r < nr; r++) {                                                     \
                ROW_SUMS(wblk, codes)                                                          \
                __m256 s = _mm256_mul_ps(_mm256_set1_ps(half_to_float(x->d)), pd);             \
                acc[r] = _mm256_fmadd_ps(s, _mm256_cvtepi32_ps(_mm256_sub_epi32(isum, pm)), acc[r]); \
            }                                                                                  \
        }                                                                                      \
        for (int r = 0; r < nr; r++) _mm256_storeu_ps(out[r], acc[r]);                         \
    }                                                                                          \
    BATCH_ROWS(base)

// Formats with a min (Q4_1, Q5_1): lane t = d_w * d_t * sum u a + m_w * s_t (s_t = d_t sum a).
#define BATCH_WITH_MIN(base, wblk, codes)                                                      \
    KINL void NAME(base##_n)(int64_t nb, const void *w, size_t rb, const int nr,               \
                             const batch_block *p, float out[4][8]) {                          \
        __m256 acc[4], mins[4];                                                                \
        for (int r = 0; r < 4; r++) acc[r] = mins[r] = _mm256_setzero_ps();                    \
        for (int64_t i = 0; i < nb; i++, p++) {                                                \
            __m256 pd = _mm256_load_ps(p->d), ps = _mm256_load_ps((const float *)p->m);        \
            for (int r = 0; r < nr; r++) {                                                     \
                ROW_SUMS(wblk, codes)                                                          \
                __m128 dm = half_pair(&x->d);                                                  \
                __m256 s = _mm256_mul_ps(_mm256_broadcastss_ps(dm), pd);                       \
                acc[r] = _mm256_fmadd_ps(s, _mm256_cvtepi32_ps(isum), acc[r]);                 \
                mins[r] = _mm256_fmadd_ps(_mm256_broadcastss_ps(_mm_movehdup_ps(dm)), ps, mins[r]); \
            }                                                                                  \
        }                                                                                      \
        for (int r = 0; r < nr; r++) _mm256_storeu_ps(out[r], _mm256_add_ps(acc[r], mins[r])); \
    }                                                                                          \
    BATCH_ROWS(base)

// Q4: the low nibbles are elements 0-15 and the high nibbles 16-31, so both halves come from
// one 16-byte broadcast load.
#define CODES_Q4(x, lo, hi)                                                                    \
    __m256i lo##_b = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(x)->qs));    \
    __m256i lo = _mm256_and_si256(lo##_b, _mm256_set1_epi8(0x0F));                             \
    __m256i hi = _mm256_and_si256(_mm256_srli_epi16(lo##_b, 4), _mm256_set1_epi8(0x0F));
// Q5: the nibbles as Q4's; element j's fifth bit (bit j of qh) goes to its byte by one byte
// shuffle per half (lo takes qh bytes 0-1, hi bytes 2-3, in both lanes) and a bit test.
KINL void NAME(q5_halves)(const uint8_t *qh, const uint8_t *qs, __m256i *lo, __m256i *hi) {
    uint32_t bits;
    memcpy(&bits, qh, 4);
    const __m256i v = _mm256_set1_epi32((int)bits), low = _mm256_set1_epi8(0x0F), five = _mm256_set1_epi8(16);
    const __m256i bit = _mm256_set1_epi64x((long long)0x8040201008040201ULL);
    const __m256i pick_lo = _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1,
                                             0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1);
    const __m256i pick_hi = _mm256_setr_epi8(2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3,
                                             2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3);
    __m256i fl = _mm256_and_si256(_mm256_shuffle_epi8(v, pick_lo), bit);
    __m256i fh = _mm256_and_si256(_mm256_shuffle_epi8(v, pick_hi), bit);
    fl = _mm256_and_si256(_mm256_cmpeq_epi8(fl, bit), five);
    fh = _mm256_and_si256(_mm256_cmpeq_epi8(fh, bit), five);
    __m256i b = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)qs));
    *lo = _mm256_or_si256(_mm256_and_si256(b, low), fl);
    *hi = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(b, 4), low), fh);
}
#define CODES_Q5(x, lo, hi)                                                                    \
    __m256i lo, hi;                                                                            \
    NAME(q5_halves)((x)->qh, (x)->qs, &lo, &hi);
BATCH_SYMMETRIC(batch_q4_0, blk_q4_0, CODES_Q4)
BATCH_SYMMETRIC(batch_q5_0, blk_q5_0, CODES_Q5)
BATCH_WITH_MIN(batch_q4_1, blk_q4_1, CODES_Q4)
BATCH_WITH_MIN(batch_q5_1, blk_q5_1, CODES_Q5)

#if BATCH_Q8_0_OFFSET
// Q8_0 as u8 codes q + 128 (the dot takes all 255 values); the panel's m holds 128 * sum a.
// Each half straight from a 16-byte broadcast load.
#define CODES_Q8(x, lo, hi)                                                                    \
    __m256i lo = _mm256_xor_si256(_mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(x)->qs)), \
                                  _mm256_set1_epi8((char)0x80));                               \
    __m256i hi = _mm256_xor_si256(_mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(x)->qs + 1)), \
                                  _mm256_set1_epi8((char)0x80));
BATCH_SYMMETRIC(batch_q8_0, blk_q8_0, CODES_Q8)
#else
// Q8_0 with the sign trick: |q| as u8 (128 for -128) against a with q's sign; m is 0.
KINL void NAME(batch_q8_0_n)(int64_t nb, const void *w, size_t rb, const int nr, const batch_block *p,
                             float out[4][8]) {
    __m256 acc[4];
    for (int r = 0; r < 4; r++) acc[r] = _mm256_setzero_ps();
    for (int64_t i = 0; i < nb; i++, p++) {
        __m256 pd = _mm256_load_ps(p->d);
        for (int r = 0; r < nr; r++) {
            const blk_q8_0 *x = (const blk_q8_0 *)((const char *)w + r * rb) + i;
            _mm_prefetch((const char *)x + 4 * rb, _MM_HINT_T0);
            __m256i q = _mm256_loadu_si256((const __m256i *)x->qs);
            HALVES(q, qlo, qhi)
            __m256i ulo = _mm256_sign_epi8(qlo, qlo), uhi = _mm256_sign_epi8(qhi, qhi);
            __m256i isum = _mm256_setzero_si256();
#define SIGNED_GROUP(u, q, s, g) isum = DPB(isum, SPLAT(u, s), _mm256_sign_epi8(PANEL(p, g), SPLAT(q, s)));
            SIGNED_GROUP(ulo, qlo, 0, 0) SIGNED_GROUP(ulo, qlo, 1, 1) SIGNED_GROUP(ulo, qlo, 2, 2) SIGNED_GROUP(ulo, qlo, 3, 3)
            SIGNED_GROUP(uhi, qhi, 0, 4) SIGNED_GROUP(uhi, qhi, 1, 5) SIGNED_GROUP(uhi, qhi, 2, 6) SIGNED_GROUP(uhi, qhi, 3, 7)
#undef SIGNED_GROUP
            __m256 s = _mm256_mul_ps(_mm256_set1_ps(half_to_float(x->d)), pd);
            acc[r] = _mm256_fmadd_ps(s, _mm256_cvtepi32_ps(isum), acc[r]);
        }
    }
    for (int r = 0; r < nr; r++) _mm256_storeu_ps(out[r], acc[r]);
}
BATCH_ROWS(batch_q8_0)
#endif

static batch_fn NAME(batch_kernel)(int32_t t, int *offset) {
    switch (t) {
    case T_Q4_0: *offset = 8; return NAME(batch_q4_0);
    case T_Q5_0: *offset = 16; return NAME(batch_q5_0);
    case T_Q8_0: *offset = BATCH_Q8_0_OFFSET ? 128 : 0; return NAME(batch_q8_0);
    case T_Q4_1: *offset = 0; return NAME(batch_q4_1);
    case T_Q5_1: *offset = 0; return NAME(batch_q5_1);
    default: return NULL;
    }
}

int NAME(batch_offset)(int32_t t) {
    int offset = -1;
    return NAME(batch_kernel)(t, &offset) ? offset : -1;
}

int NAME(batch_panel_rows)(int32_t t, int64_t cols, const void *w, size_t rb, int64_t row_begin,
                           int64_t row_end, const batch_block *panel, int64_t n_tokens, float *out,
                           int64_t stride) {
    int offset = 0;
    batch_fn fn = NAME(batch_kernel)(t, &offset);
    if (!fn) return 0;
    int64_t nb = cols / QK, groups = (n_tokens + 7) / 8;
    // Weight rows in L1-sized blocks (as odk_matmul_rows), each passed over every token group.
    int64_t block = (int64_t)(16384 / (rb ? rb : 1));
    block = block < 4 ? 4 : block > 64 ? 64 : block & ~(int64_t)3;
    float o[4][8];
    for (int64_t b0 = row_begin; b0 < row_end; b0 += block) {
        int64_t b1 = b0 + block < row_end ? b0 + block : row_end;
        for (int64_t g = 0; g < groups; g++) {
            int64_t count = n_tokens - 8 * g < 8 ? n_tokens - 8 * g : 8;
            float *og = out + 8 * g * stride;
            for (int64_t r = b0; r < b1; r += 4) {
                int nr = b1 - r < 4 ? (int)(b1 - r) : 4;
                fn(nb, (const char *)w + r * rb, rb, nr, panel + g * nb, o);
                for (int i = 0; i < nr; i++)
                    for (int64_t k = 0; k < count; k++) og[k * stride + r + i] = o[i][k];
            }
        }
    }
    return 1;
}

#undef GROUPS_U8
#undef ROW_SUMS
#undef HALVES
#undef SPLAT
#undef PANEL
#undef BATCH_SYMMETRIC
#undef BATCH_WITH_MIN
#undef BATCH_ROWS
#undef CODES_Q4
#undef CODES_Q5
#endif
