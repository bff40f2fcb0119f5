// Internal: four-row kernels for the 32-element formats (four weight rows against one
// activation row, and against two), included once per x86 tier (dot4_avx2.c, dot4_avx512.c).
// The activation block and its scale are loaded and converted once for four rows, and four
// independent accumulator chains keep the integer and FMA units busy (hot-cache Q4_1 matvec
// went from ~7.7 to ~10.4 GB/s on one thread).
//
// Four interleaved row streams defeat the hardware prefetcher on this AMD machine (cold Q8_0
// matvec fell to ~3 GB/s against ~7 for one row at a time), so each step prefetches the same
// block of a row at least 8 KiB further on, in whole four-row groups. One group ahead was too
// close for short rows: one thread, out of cache, AVX-512 tier, Q4_1 1536x576 went from 12.8 to
// 27.0 GB/s and Q5_0 4864x896 from 13.9 to about 20-23.
//
// The includer defines KFN and KINL (function and inline-helper attributes), NAME(x), DOT_ADD(acc, u, s) (acc plus the
// u8 x s8 dot of each 4-byte group, as 8 int32 lanes), NIBBLES(qs) (16 packed bytes as 32 codes,
// low nibbles first) and Q5_CODES(qh, qs) (the same with each element's fifth bit). Integer
// sums are exact on every tier, so a tier changes only how fast they are made, never the floats.
#include "blocks32_avx2.h"
#if defined(__x86_64__) || defined(__i386__)

#define PREFETCH_GROUPS_BYTES 8192
#define ROWS4(type, w, rb)                                                                  \
    const size_t pf = (PREFETCH_GROUPS_BYTES + 4 * (rb) - 1) / (4 * (rb)) * 4 * (rb);       \
    const type *x0 = (const type *)(w);                                                     \
    const type *x1 = (const type *)((const char *)(w) + (rb));                              \
    const type *x2 = (const type *)((const char *)(w) + 2 * (rb));                          \
    const type *x3 = (const type *)((const char *)(w) + 3 * (rb))

// Formats with one scale per block. PREP runs once per activation block (loads `av`, and any
// shared term); PROD gives one row's 8 int32 partial sums.
#define DOT4_SYMMETRIC(name, wblk, ablk)                                                    \
    static KFN void name(int64_t n, const void *w, size_t rb, const void *a, float *out) {  \
        ROWS4(wblk, w, rb);                                                                 \
        const ablk *y = a;                                                                  \
        __m256 acc0 = _mm256_setzero_ps(), acc1 = acc0, acc2 = acc0, acc3 = acc0;           \
        for (int64_t i = 0; i < n / QK; i++) {                                              \
            __m128 ad = half_vec(y[i].d);                                                   \
            PREP                                                                            \
            STEP_SYM(x0, acc0) STEP_SYM(x1, acc1) STEP_SYM(x2, acc2) STEP_SYM(x3, acc3)     \
        }                                                                                   \
        out[0] = hsum_ps(acc0);                                                             \
        out[1] = hsum_ps(acc1);                                                             \
        out[2] = hsum_ps(acc2);                                                             \
        out[3] = hsum_ps(acc3);                                                             \
    }
#define STEP_SYM(x, acc) {                                                                  \
        _mm_prefetch((const char *)&x[i] + pf, _MM_HINT_T0);                                \
        __m128 s = _mm_mul_ss(half_vec(x[i].d), ad);                                        \
        acc = _mm256_fmadd_ps(_mm256_broadcastss_ps(s), _mm256_cvtepi32_ps(PROD(&x[i])), acc); }

// Formats with a min: lane 1 of the (d_w, m_w) * (d_a, s_a) product accumulates m_w * s_a.
#define DOT4_WITH_MIN(name, wblk)                                                           \
    static KFN void name(int64_t n, const void *w, size_t rb, const void *a, float *out) {  \
        ROWS4(wblk, w, rb);                                                                 \
        const blk_q8_1 *y = a;                                                              \
        __m256 acc0 = _mm256_setzero_ps(), acc1 = acc0, acc2 = acc0, acc3 = acc0;           \
        __m128 m0 = _mm_setzero_ps(), m1 = m0, m2 = m0, m3 = m0;                            \
        for (int64_t i = 0; i < n / QK; i++) {                                              \
            __m128 ad = half_pair(&y[i].d);                                                 \
            __m256i av = _mm256_loadu_si256((const __m256i *)y[i].qs);                      \
            STEP_MIN(x0, acc0, m0) STEP_MIN(x1, acc1, m1)                                   \
            STEP_MIN(x2, acc2, m2) STEP_MIN(x3, acc3, m3)                                   \
        }                                                                                   \
        out[0] = hsum_ps(acc0) + _mm_cvtss_f32(_mm_movehdup_ps(m0));                        \
        out[1] = hsum_ps(acc1) + _mm_cvtss_f32(_mm_movehdup_ps(m1));                        \
        out[2] = hsum_ps(acc2) + _mm_cvtss_f32(_mm_movehdup_ps(m2));                        \
        out[3] = hsum_ps(acc3) + _mm_cvtss_f32(_mm_movehdup_ps(m3));                        \
    }
#define STEP_MIN(x, acc, mm) {                                                              \
        _mm_prefetch((const char *)&x[i] + pf, _MM_HINT_T0);                                \
        __m128 s = _mm_mul_ps(half_pair(&x[i].d), ad);                                      \
        acc = _mm256_fmadd_ps(_mm256_broadcastss_ps(s), _mm256_cvtepi32_ps(PROD(&x[i])), acc); \
        mm = _mm_add_ps(mm, s); }

// Q4_0/Q5_0 codes are unsigned nibbles minus an offset: sum (u - k) a = sum u a - k sum a, and
// sum a is computed once per activation block instead of sign-flipping every row.
// The offset term, -k sum a, starts each row's integer sum, so one DOT_ADD makes the product.
KINL __m256i code_sum(__m256i a) { return DOT_ADD(_mm256_setzero_si256(), _mm256_set1_epi8(1), a); }
#define OFFSET(sum, shift) _mm256_sub_epi32(_mm256_setzero_si256(), _mm256_slli_epi32((sum), (shift)))
#define PREP                                                                                \
    __m256i av = _mm256_loadu_si256((const __m256i *)y[i].qs);                              \
    __m256i aoff = OFFSET(code_sum(av), SHIFT);
#define SHIFT 3
#define PROD(b) DOT_ADD(aoff, NIBBLES((b)->qs), av)
DOT4_SYMMETRIC(dot4_q4_0, blk_q4_0, blk_q8_0)
#undef PROD
#undef SHIFT
#define SHIFT 4
#define PROD(b) DOT_ADD(aoff, Q5_CODES((b)->qh, (b)->qs), av)
DOT4_SYMMETRIC(dot4_q5_0, blk_q5_0, blk_q8_0)
#undef PROD
#undef PREP
#undef SHIFT

// Q8_0 weights may hold -128, whose sign cannot be flipped in int8, so the sign trick takes the
// absolute value of the weight (128 as unsigned) and moves its sign onto the activation.
#define PREP __m256i av = _mm256_loadu_si256((const __m256i *)y[i].qs);
KINL __m256i dot_i8_k(const int8_t *qs, __m256i a) {
    __m256i q = _mm256_loadu_si256((const __m256i *)qs);
    return DOT_ADD(_mm256_setzero_si256(), _mm256_sign_epi8(q, q), _mm256_sign_epi8(a, q));
}
#define PROD(b) dot_i8_k((b)->qs, av)
DOT4_SYMMETRIC(dot4_q8_0, blk_q8_0, blk_q8_0)
#undef PROD
#undef PREP

#define PROD(b) DOT_ADD(_mm256_setzero_si256(), NIBBLES((b)->qs), av)
DOT4_WITH_MIN(dot4_q4_1, blk_q4_1)
#undef PROD
#define PROD(b) DOT_ADD(_mm256_setzero_si256(), Q5_CODES((b)->qh, (b)->qs), av)
DOT4_WITH_MIN(dot4_q5_1, blk_q5_1)
#undef PROD

// Four rows against two activation rows (two tokens of a batched decode step, or of a short
// prompt): each weight block is unpacked and its scale converted once for both tokens. Every
// (row, token) accumulates in the same order, with the same operations, as the four-row
// kernel above, so a token's outputs equal what that kernel gives it alone, bit for bit.
#define DOT4X2_SYMMETRIC(name, wblk, ablk)                                                  \
    static KFN void name(int64_t n, const void *w, size_t rb, const void *a, size_t ab,     \
                             float *o0, float *o1) {                                        \
        ROWS4(wblk, w, rb);                                                                 \
        const ablk *y = a;                                                                  \
        const ablk *z = (const ablk *)((const char *)a + ab);                               \
        __m256 acc0 = _mm256_setzero_ps(), acc1 = acc0, acc2 = acc0, acc3 = acc0;           \
        __m256 bcc0 = acc0, bcc1 = acc0, bcc2 = acc0, bcc3 = acc0;                          \
        for (int64_t i = 0; i < n / QK; i++) {                                              \
            __m128 ad = half_vec(y[i].d), bd = half_vec(z[i].d);                            \
            PREP2                                                                           \
            STEP2_SYM(x0, acc0, bcc0) STEP2_SYM(x1, acc1, bcc1)                             \
            STEP2_SYM(x2, acc2, bcc2) STEP2_SYM(x3, acc3, bcc3)                             \
        }                                                                                   \
        o0[0] = hsum_ps(acc0); o0[1] = hsum_ps(acc1); o0[2] = hsum_ps(acc2); o0[3] = hsum_ps(acc3); \
        o1[0] = hsum_ps(bcc0); o1[1] = hsum_ps(bcc1); o1[2] = hsum_ps(bcc2); o1[3] = hsum_ps(bcc3); \
    }
#define STEP2_SYM(x, acc, bcc) {                                                            \
        _mm_prefetch((const char *)&x[i] + pf, _MM_HINT_T0);                                \
        __m128 wd = half_vec(x[i].d);                                                       \
        CODES(&x[i])                                                                        \
        acc = _mm256_fmadd_ps(_mm256_broadcastss_ps(_mm_mul_ss(wd, ad)), _mm256_cvtepi32_ps(PROD2(av, aoff)), acc); \
        bcc = _mm256_fmadd_ps(_mm256_broadcastss_ps(_mm_mul_ss(wd, bd)), _mm256_cvtepi32_ps(PROD2(bv, boff)), bcc); }

#define DOT4X2_WITH_MIN(name, wblk)                                                         \
    static KFN void name(int64_t n, const void *w, size_t rb, const void *a, size_t ab,     \
                             float *o0, float *o1) {                                        \
        ROWS4(wblk, w, rb);                                                                 \
        const blk_q8_1 *y = a;                                                              \
        const blk_q8_1 *z = (const blk_q8_1 *)((const char *)a + ab);                       \
        __m256 acc0 = _mm256_setzero_ps(), acc1 = acc0, acc2 = acc0, acc3 = acc0;           \
        __m256 bcc0 = acc0, bcc1 = acc0, bcc2 = acc0, bcc3 = acc0;                          \
        __m128 m0 = _mm_setzero_ps(), m1 = m0, m2 = m0, m3 = m0;                            \
        __m128 n0 = m0, n1 = m0, n2 = m0, n3 = m0;                                          \
        for (int64_t i = 0; i < n / QK; i++) {                                              \
            __m128 ad = half_pair(&y[i].d), bd = half_pair(&z[i].d);                        \
            __m256i av = _mm256_loadu_si256((const __m256i *)y[i].qs);                      \
            __m256i bv = _mm256_loadu_si256((const __m256i *)z[i].qs);                      \
            STEP2_MIN(x0, acc0, bcc0, m0, n0) STEP2_MIN(x1, acc1, bcc1, m1, n1)             \
            STEP2_MIN(x2, acc2, bcc2, m2, n2) STEP2_MIN(x3, acc3, bcc3, m3, n3)             \
        }                                                                                   \
        o0[0] = hsum_ps(acc0) + _mm_cvtss_f32(_mm_movehdup_ps(m0));                         \
        o0[1] = hsum_ps(acc1) + _mm_cvtss_f32(_mm_movehdup_ps(m1));                         \
        o0[2] = hsum_ps(acc2) + _mm_cvtss_f32(_mm_movehdup_ps(m2));                         \
        o0[3] = hsum_ps(acc3) + _mm_cvtss_f32(_mm_movehdup_ps(m3));                         \
        o1[0] = hsum_ps(bcc0) + _mm_cvtss_f32(_mm_movehdup_ps(n0));                         \
        o1[1] = hsum_ps(bcc1) + _mm_cvtss_f32(_mm_movehdup_ps(n1));                         \
        o1[2] = hsum_ps(bcc2) + _mm_cvtss_f32(_mm_movehdup_ps(n2));                         \
        o1[3] = hsum_ps(bcc3) + _mm_cvtss_f32(_mm_movehdup_ps(n3));                         \
    }
#define STEP2_MIN(x, acc, bcc, mm, nn) {                                                    \
        _mm_prefetch((const char *)&x[i] + pf, _MM_HINT_T0);                                \
        __m128 wdm = half_pair(&x[i].d);                                                    \
        __m256i u = CODES_MIN(&x[i]);                                                       \
        __m128 s = _mm_mul_ps(wdm, ad), t = _mm_mul_ps(wdm, bd);                            \
        acc = _mm256_fmadd_ps(_mm256_broadcastss_ps(s), _mm256_cvtepi32_ps(DOT_ADD(_mm256_setzero_si256(), u, av)), acc); \
        bcc = _mm256_fmadd_ps(_mm256_broadcastss_ps(t), _mm256_cvtepi32_ps(DOT_ADD(_mm256_setzero_si256(), u, bv)), bcc); \
        mm = _mm_add_ps(mm, s);                                                             \
        nn = _mm_add_ps(nn, t); }

// Q4_0/Q5_0: unsigned codes and each token's code sum, as the four-row kernel.
#define PREP2                                                                               \
    __m256i av = _mm256_loadu_si256((const __m256i *)y[i].qs);                              \
    __m256i bv = _mm256_loadu_si256((const __m256i *)z[i].qs);                              \
    __m256i aoff = OFFSET(code_sum(av), SHIFT), boff = OFFSET(code_sum(bv), SHIFT);
#define SHIFT 3
#define CODES(b) __m256i u = NIBBLES((b)->qs);
#define PROD2(v, voff) DOT_ADD(voff, u, v)
DOT4X2_SYMMETRIC(dot4x2_q4_0, blk_q4_0, blk_q8_0)
#undef CODES
#undef PROD2
#undef SHIFT
#define SHIFT 4
#define CODES(b) __m256i u = Q5_CODES((b)->qh, (b)->qs);
#define PROD2(v, voff) DOT_ADD(voff, u, v)
DOT4X2_SYMMETRIC(dot4x2_q5_0, blk_q5_0, blk_q8_0)
#undef CODES
#undef PROD2
#undef PREP2
// Q8_0: the weight's sign moves onto each token's activations; its absolute value is taken once.
#define PREP2                                                                               \
    __m256i av = _mm256_loadu_si256((const __m256i *)y[i].qs);                              \
    __m256i bv = _mm256_loadu_si256((const __m256i *)z[i].qs);
#define CODES(b) __m256i q = _mm256_loadu_si256((const __m256i *)(b)->qs), u = _mm256_sign_epi8(q, q);
#define PROD2(v, voff) DOT_ADD(_mm256_setzero_si256(), u, _mm256_sign_epi8(v, q))
DOT4X2_SYMMETRIC(dot4x2_q8_0, blk_q8_0, blk_q8_0)
#undef CODES
#undef PROD2
#undef PREP2

#define CODES_MIN(b) NIBBLES((b)->qs)
DOT4X2_WITH_MIN(dot4x2_q4_1, blk_q4_1)
#undef CODES_MIN
#define CODES_MIN(b) Q5_CODES((b)->qh, (b)->qs)
DOT4X2_WITH_MIN(dot4x2_q5_1, blk_q5_1)
#undef CODES_MIN

odk_dot4x2_fn NAME(kernel4x2)(int32_t t) {
    switch (t) {
    case T_Q4_0: return dot4x2_q4_0;
    case T_Q4_1: return dot4x2_q4_1;
    case T_Q5_0: return dot4x2_q5_0;
    case T_Q5_1: return dot4x2_q5_1;
    case T_Q8_0: return dot4x2_q8_0;
    default: return NULL;
    }
}

odk_dot4_fn NAME(kernel4)(int32_t t) {
    switch (t) {
    case T_Q4_0: return dot4_q4_0;
    case T_Q4_1: return dot4_q4_1;
    case T_Q5_0: return dot4_q5_0;
    case T_Q5_1: return dot4_q5_1;
    case T_Q8_0: return dot4_q8_0;
    default: return NULL;
    }
}
#undef OFFSET
#undef SHIFT
#undef PREFETCH_GROUPS_BYTES
#endif

