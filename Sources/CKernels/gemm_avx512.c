// Prefill GEMM on the AVX-512 tier: the decoded tiles of gemm_decode.c, laid out so that VNNI's
// vpdpbusd (u8 x s8, four products summed into an int32 lane, no saturation) builds a whole
// 16-element scale group's exact integer sum in one lane.
//
// Layout: a row is padded with zero codes to a multiple of 64 elements and cut into pieces of
// 256 elements (16 groups), then at most one of 128 (8 groups) and one of 64 (4 groups). In a
// piece of G groups, vector k = 0..3 (4G bytes) holds at bytes 4g..4g+3 the elements
// 16g+4k..16g+4k+3, so after four vpdpbusd int32 lane g holds group g's sum of u * a. Weights
// and activations get the same permutation. Scales, mins, activation scales and activation sums
// are then plain per-group float vectors, and each (row, token, group) costs one conversion,
// one multiply and two FMAs (scale and min terms), where the AVX2 form pays maddubs, madd and
// the float work for every 4 elements. Integer sums stay exact, so results differ from the
// scalar kernels by float rounding only.
//
// Q8_0 weights fit too: code q + 128 (u8; vpdpbusd takes all 255 values) and min -128 d.
#include "simd.h"
#include "gemm.h"

/// Elements per row after padding to whole 64-element pieces.
static inline int64_t padded(int64_t cols) { return (cols + 63) & ~(int64_t)63; }

int odk_gemm_supports_avx512(int32_t t) { return t == T_Q8_0 || odk_gemm_supports_avx2(t); }

size_t odk_gemm_panel_row_bytes_avx512(int64_t cols) {
    // codes (padded), then activation scale and scaled sum per group; rows 64-byte aligned.
    int64_t cp = padded(cols);
    return (size_t)((cp + 8 * (cp / 16) + 63) & ~(int64_t)63);
}

size_t odk_gemm_scratch_bytes_avx512(int64_t cols) {
    // Tile: codes, scales and mins per row; then one row as odk_gemm_decode_row writes it.
    int64_t cp = padded(cols);
    return (size_t)(GEMM_TILE_ROWS * (cp + 8 * (cp / 16)) + 2 * cp + cp / 4 + 4 * 64);
}

/// Position of element e (a multiple of 4) in the permuted layout of a row of cp elements.
static inline int64_t permuted(int64_t e, int64_t cp) {
    int64_t p0 = e & ~(int64_t)255, g = 16;
    if (cp - p0 < 256) {  // the tail: a 128-element piece, then a 64-element one
        int64_t rem = cp - p0;
        g = 4;
        if (rem >= 128 && e - p0 < 128) g = 8;
        else if (rem >= 128) p0 += 128;
    }
    int64_t off = e - p0;
    return p0 + ((off & 15) >> 2) * 4 * g + (off >> 4) * 4;
}

void odk_gemm_prepare_avx512(int32_t t, int64_t cols, const void *act, size_t act_row_bytes, int64_t n, void *panel) {
    size_t prb = odk_gemm_panel_row_bytes_avx512(cols);
    int64_t cp = padded(cols), ng = cp / 16;
    int32_t at = odk_activation_type(t);
    size_t bs = at == T_Q8_K ? sizeof(blk_q8_K) : at == T_Q8_1 ? sizeof(blk_q8_1) : sizeof(blk_q8_0);
    int block = at == T_Q8_K ? QK_K : QK, header = at == T_Q8_K ? 4 : at == T_Q8_1 ? 4 : 2;
    for (int64_t tk = 0; tk < n; tk++) {
        const uint8_t *src = (const uint8_t *)act + tk * act_row_bytes;
        uint8_t *codes = (uint8_t *)panel + tk * prb;
        float *dg = (float *)(codes + cp), *sg = dg + ng;
        for (int64_t e = 0; e < cp; e += 4) {
            uint8_t *d = codes + permuted(e, cp);
            if (e < cols) memcpy(d, src + (e / block) * bs + header + e % block, 4);
            else memset(d, 0, 4);
        }
        for (int64_t g = 0; g < ng; g++) {
            if (g >= cols / 16) { dg[g] = sg[g] = 0; continue; }
            if (at == T_Q8_K) {
                const blk_q8_K *y = (const blk_q8_K *)src + g / 16;
                dg[g] = y->d;
                sg[g] = y->d * (float)y->bsums[g % 16];
                continue;
            }
            const uint8_t *blk = src + (g / 2) * bs;
            half_t h;
            memcpy(&h, blk, 2);
            const int8_t *qs = (const int8_t *)(blk + header) + (g % 2) * 16;
            int s = 0;
            for (int j = 0; j < 16; j++) s += qs[j];
            dg[g] = h2f(h);
            sg[g] = dg[g] * (float)s;
        }
    }
}

/// Bytes of 256 elements of a row of a GEMM weight type.
static size_t bytes_per_256(int32_t t) {
    switch (t) {
    case T_Q4_0: return 8 * sizeof(blk_q4_0);
    case T_Q4_1: return 8 * sizeof(blk_q4_1);
    case T_Q5_0: return 8 * sizeof(blk_q5_0);
    case T_Q5_1: return 8 * sizeof(blk_q5_1);
    case T_Q2_K: return sizeof(blk_q2_K);
    case T_Q3_K: return sizeof(blk_q3_K);
    case T_Q4_K: return sizeof(blk_q4_K);
    case T_Q5_K: return sizeof(blk_q5_K);
    default: return sizeof(blk_q6_K);
    }
}

/// One weight row into the tile the portable way: permuted codes u[cp], scale and min per group
/// (ng of each). Elements before `from` (where a block ends: a multiple of 64, or of 256 for the
/// K-quants) are left alone: the vector decoder below has written them.
static void decode_row_portable(int32_t t, const void *row, int64_t cols, int64_t cp, int64_t from, uint8_t *u,
                                float *sc, float *mn, uint8_t *tmp_u, float *tmp_s8) {
    int64_t ng = cp / 16, g = 0;
    float *tmp_mn = tmp_s8 + cp / 4;
    if (t == T_Q8_0) {
        const blk_q8_0 *x = row;
        for (int64_t b = from / QK; b < cols / QK; b++) {
            float d = h2f(x[b].d);
            for (int j = 0; j < QK; j++) tmp_u[b * QK + j] = (uint8_t)x[b].qs[j] ^ 0x80;  // q + 128
            sc[2 * b] = sc[2 * b + 1] = d;
            mn[2 * b] = mn[2 * b + 1] = -128 * d;
        }
    } else if (from < cols) {
        // Blocks are self-contained, so the rest decodes on its own.
        const char *rest = (const char *)row + (size_t)from * bytes_per_256(t) / 256;
        odk_gemm_decode_row(t, rest, cols - from, tmp_u + from, tmp_s8, tmp_mn);
        for (g = from / 16; g < cols / 16; g++) {
            int64_t h = g - from / 16;
            sc[g] = tmp_s8[(h / 2) * 8 + (h % 2) * 4];
            mn[g] = tmp_mn[h];
        }
    }
    for (g = cols / 16; g < ng; g++) sc[g] = mn[g] = 0;
    for (int64_t e = from; e < cp; e += 4) {
        uint8_t *d = u + permuted(e, cp);
        if (e < cols) memcpy(d, tmp_u + e, 4);
        else memset(d, 0, 4);
    }
}

#if defined(__x86_64__) || defined(__i386__)

/// Four groups' codes in element order (lane l: group l) regrouped by dword: lane k holds dword
/// k of groups 0..3.
AVX512_INLINE __m512i by_dword(__m512i n) {
    return _mm512_permutexvar_epi32(_mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15), n);
}

/// Four registers of codes in element order (register q, 128-bit lane l: group 4q + l) into the
/// permuted layout of one 256-element piece: register k holds dword k of groups 0..15.
AVX512_INLINE void store_piece(__m512i n0, __m512i n1, __m512i n2, __m512i n3, uint8_t *u) {
    __m512i m0 = by_dword(n0), m1 = by_dword(n1), m2 = by_dword(n2), m3 = by_dword(n3);
    __m512i t0 = _mm512_shuffle_i32x4(m0, m1, _MM_SHUFFLE(1, 0, 1, 0));
    __m512i t1 = _mm512_shuffle_i32x4(m2, m3, _MM_SHUFFLE(1, 0, 1, 0));
    __m512i t2 = _mm512_shuffle_i32x4(m0, m1, _MM_SHUFFLE(3, 2, 3, 2));
    __m512i t3 = _mm512_shuffle_i32x4(m2, m3, _MM_SHUFFLE(3, 2, 3, 2));
    _mm512_storeu_si512(u, _mm512_shuffle_i32x4(t0, t1, _MM_SHUFFLE(2, 0, 2, 0)));
    _mm512_storeu_si512(u + 64, _mm512_shuffle_i32x4(t0, t1, _MM_SHUFFLE(3, 1, 3, 1)));
    _mm512_storeu_si512(u + 128, _mm512_shuffle_i32x4(t2, t3, _MM_SHUFFLE(2, 0, 2, 0)));
    _mm512_storeu_si512(u + 192, _mm512_shuffle_i32x4(t2, t3, _MM_SHUFFLE(3, 1, 3, 1)));
}

/// The same for the tail pieces: two registers (groups 0..7) into a 128-element piece, whose
/// vectors are 32 bytes, or one (groups 0..3) into a 64-element piece of 16-byte vectors.
AVX512_INLINE void store_piece128(__m512i n0, __m512i n1, uint8_t *u) {
    __m512i m0 = by_dword(n0), m1 = by_dword(n1);
    __m512i t0 = _mm512_shuffle_i32x4(m0, m1, _MM_SHUFFLE(1, 0, 1, 0));
    __m512i t2 = _mm512_shuffle_i32x4(m0, m1, _MM_SHUFFLE(3, 2, 3, 2));
    _mm512_storeu_si512(u, _mm512_shuffle_i32x4(t0, t0, _MM_SHUFFLE(3, 1, 2, 0)));
    _mm512_storeu_si512(u + 64, _mm512_shuffle_i32x4(t2, t2, _MM_SHUFFLE(3, 1, 2, 0)));
}

AVX512_INLINE void store_piece64(__m512i n0, uint8_t *u) { _mm512_storeu_si512(u, by_dword(n0)); }

/// Two 16-byte code runs, each repeated in two lanes: [a, a, b, b].
AVX512_INLINE __m512i lanes_aabb(const uint8_t *a, const uint8_t *b) {
    __m512i x = _mm512_castsi128_si512(_mm_loadu_si128((const __m128i *)a));
    x = _mm512_inserti32x4(x, _mm_loadu_si128((const __m128i *)a), 1);
    x = _mm512_inserti32x4(x, _mm_loadu_si128((const __m128i *)b), 2);
    return _mm512_inserti32x4(x, _mm_loadu_si128((const __m128i *)b), 3);
}

/// Each byte's low nibble where `shift` holds 0 for its 16-bit word, its high nibble where 4.
AVX512_INLINE __m512i nibbles(__m512i x, __m512i shift) {
    return _mm512_and_si512(_mm512_srlv_epi16(x, shift), _mm512_set1_epi8(0x0F));
}

/// Q4_0 codes (Q5_0's with qh0/qh1) of blocks b and b + 1: groups 2b, 2b + 1, 2b + 2, 2b + 3.
AVX512_INLINE __m512i legacy_pair(const uint8_t *qs0, const uint8_t *qs1, const uint8_t *qh0, const uint8_t *qh1) {
    const __m512i shift = _mm512_setr_epi64(0, 0, 0x0004000400040004, 0x0004000400040004,
                                            0, 0, 0x0004000400040004, 0x0004000400040004);
    __m512i c = nibbles(lanes_aabb(qs0, qs1), shift);
    if (qh0) {  // element j of a block takes bit j of its qh: lanes 0-1 block b, 2-3 block b + 1
        uint32_t h0, h1;
        memcpy(&h0, qh0, 4);
        memcpy(&h1, qh1, 4);
        __mmask64 m = (__mmask64)h0 | (__mmask64)h1 << 32;
        c = _mm512_or_si512(c, _mm512_maskz_mov_epi8(m, _mm512_set1_epi8(0x10)));
    }
    return c;
}

/// Codes of blocks b and b + 1 of a Q4_0, Q5_0 or Q8_0 row (Q8_0: q + 128): four groups.
AVX512_INLINE __m512i legacy_regs(int32_t t, const void *row, int64_t b) {
    if (t == T_Q8_0) {
        const blk_q8_0 *x = (const blk_q8_0 *)row + b;
        __m512i v = _mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *)x[0].qs));
        v = _mm512_inserti64x4(v, _mm256_loadu_si256((const __m256i *)x[1].qs), 1);
        return _mm512_xor_si512(v, _mm512_set1_epi8((char)0x80));
    }
    if (t == T_Q5_0) {
        const blk_q5_0 *x = (const blk_q5_0 *)row + b;
        return legacy_pair(x[0].qs, x[1].qs, x[0].qh, x[1].qh);
    }
    const blk_q4_0 *x = (const blk_q4_0 *)row + b;
    return legacy_pair(x[0].qs, x[1].qs, NULL, NULL);
}

/// The vector decoder: Q4_0, Q5_0, Q8_0, Q4_K, Q5_K and Q6_K rows, byte for byte what
/// decode_row_portable writes, up to the last whole 64-element piece. Returns the elements done.
AVX512_FN static int64_t decode_row_vector(int32_t t, const void *row, int64_t cols, uint8_t *u, float *sc,
                                           float *mn) {
    int64_t pieces = cols / 256;
    switch (t) {
    case T_Q4_0: case T_Q5_0: case T_Q8_0: {
        // Pieces of 256, then one of 128 and one of 64 at the end, as the layout cuts the padded
        // row; each register holds two blocks (four groups).
        int64_t e = 0, cp = padded(cols);
        size_t bs = t == T_Q8_0 ? sizeof(blk_q8_0) : t == T_Q5_0 ? sizeof(blk_q5_0) : sizeof(blk_q4_0);
        const __m512 offset = _mm512_set1_ps(t == T_Q8_0 ? -128.0f : t == T_Q5_0 ? -16.0f : -8.0f);
        const __m512i twice = _mm512_setr_epi32(0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7);
        for (;;) {
            int regs = cp - e >= 256 ? 4 : cp - e >= 128 ? 2 : 1;
            if (e + 64 * regs > cols) break;  // a piece with padding: the portable decoder's
            __m512i n[4];
            for (int q = 0; q < regs; q++) n[q] = legacy_regs(t, row, e / QK + 2 * q);
            if (regs == 4) store_piece(n[0], n[1], n[2], n[3], u + e);
            else if (regs == 2) store_piece128(n[0], n[1], u + e);
            else store_piece64(n[0], u + e);
            // Scales of the 2 * regs blocks by F16C (exact, as h2f), each for its two groups.
            uint16_t h[8] = {0};
            for (int k = 0; k < 2 * regs; k++) memcpy(&h[k], (const char *)row + (e / QK + k) * bs, 2);
            __m512 d = _mm512_castps256_ps512(_mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)h)));
            __m512 m = _mm512_mul_ps(d, offset);
            __mmask16 keep = (__mmask16)((1u << (4 * regs)) - 1);
            _mm512_mask_storeu_ps(sc + e / 16, keep, _mm512_permutexvar_ps(twice, d));
            _mm512_mask_storeu_ps(mn + e / 16, keep, _mm512_permutexvar_ps(twice, m));
            e += 64 * regs;
        }
        return e;
    }
    case T_Q4_K: case T_Q5_K: {
        // Chunk c (64 elements, groups 4c..4c+3): low nibbles of qs[32c..32c+31], then high ones;
        // Q5_K adds bit 2c (first 32) or 2c + 1 (last 32) of qh[l] as bit 4.
        int five = t == T_Q5_K;
        const __m512i shift = _mm512_setr_epi64(0, 0, 0, 0, 0x0004000400040004, 0x0004000400040004,
                                                0x0004000400040004, 0x0004000400040004);
        for (int64_t p = 0; p < pieces; p++) {
            const blk_q4_K *x4 = (const blk_q4_K *)row + p;
            const blk_q5_K *x5 = (const blk_q5_K *)row + p;
            const uint8_t *qs = five ? x5->qs : x4->qs, *sp = five ? x5->scales : x4->scales;
            __m512i n[4], qh = _mm512_setzero_si512();
            if (five) qh = _mm512_broadcast_i64x4(_mm256_loadu_si256((const __m256i *)x5->qh));
            for (int c = 0; c < 4; c++) {
                __m512i v = _mm512_broadcast_i64x4(_mm256_loadu_si256((const __m256i *)(qs + 32 * c)));
                n[c] = nibbles(v, shift);
                if (five) {
                    __m512i bit = _mm512_inserti64x4(_mm512_set1_epi8((char)(1 << (2 * c))),
                                                     _mm256_set1_epi8((char)(1 << (2 * c + 1))), 1);
                    __mmask64 m = _mm512_test_epi8_mask(qh, bit);
                    n[c] = _mm512_or_si512(n[c], _mm512_maskz_mov_epi8(m, _mm512_set1_epi8(0x10)));
                }
            }
            store_piece(n[0], n[1], n[2], n[3], u + p * 256);
            float d = h2f(five ? x5->d : x4->d), dmin = h2f(five ? x5->dmin : x4->dmin);
            for (int j = 0; j < 8; j++) {
                int s, m;
                kquant_scale_min(j, sp, &s, &m);
                sc[p * 16 + 2 * j] = sc[p * 16 + 2 * j + 1] = d * (float)s;
                mn[p * 16 + 2 * j] = mn[p * 16 + 2 * j + 1] = -dmin * (float)m;
            }
        }
        return pieces * 256;
    }
    case T_Q6_K: {
        // Half h (groups 8h..8h+7): low nibbles of ql[64h..64h+63] with qh bits 0-1 (first 32)
        // or 2-3 (last 32), then the high nibbles with qh bits 4-5 or 6-7.
        const __m512i lo_shift = _mm512_setr_epi64(0, 0, 0, 0, 0x0002000200020002, 0x0002000200020002,
                                                   0x0002000200020002, 0x0002000200020002);
        const __m512i hi_shift = _mm512_add_epi16(lo_shift, _mm512_set1_epi16(4));
        const __m512i three = _mm512_set1_epi8(3), low4 = _mm512_set1_epi8(0x0F);
        for (int64_t p = 0; p < pieces; p++) {
            const blk_q6_K *x = (const blk_q6_K *)row + p;
            __m512i n[4];
            for (int h = 0; h < 2; h++) {
                __m512i ql = _mm512_loadu_si512(x->ql + 64 * h);
                __m512i qh = _mm512_broadcast_i64x4(_mm256_loadu_si256((const __m256i *)(x->qh + 32 * h)));
                __m512i hl = _mm512_slli_epi16(_mm512_and_si512(_mm512_srlv_epi16(qh, lo_shift), three), 4);
                __m512i hh = _mm512_slli_epi16(_mm512_and_si512(_mm512_srlv_epi16(qh, hi_shift), three), 4);
                n[2 * h] = _mm512_or_si512(_mm512_and_si512(ql, low4), hl);
                n[2 * h + 1] = _mm512_or_si512(_mm512_and_si512(_mm512_srli_epi16(ql, 4), low4), hh);
            }
            store_piece(n[0], n[1], n[2], n[3], u + p * 256);
            float d = h2f(x->d);
            for (int g = 0; g < 16; g++) {
                sc[p * 16 + g] = d * (float)x->scales[g];
                mn[p * 16 + g] = -32 * d * (float)x->scales[g];
            }
        }
        return pieces * 256;
    }
    default: return 0;
    }
}

/// One weight row into the tile: the vector decoder for whole pieces, the portable one for the rest.
static void decode_row(int32_t t, const void *row, int64_t cols, int64_t cp, uint8_t *u, float *sc, float *mn,
                       uint8_t *tmp_u, float *tmp_s8) {
    int64_t done = decode_row_vector(t, row, cols, u, sc, mn);
    if (done < cp) decode_row_portable(t, row, cols, cp, done, u, sc, mn, tmp_u, tmp_s8);
}

/// A 256-element piece (16 groups) of R rows x T tokens, into the zmm accumulators.
#define PIECE16(e, g0)                                                                            \
    do {                                                                                          \
        __m512i ur[2][4];                                                                         \
        __m512 sr[2], mr[2];                                                                      \
        for (int r = 0; r < R; r++) {                                                             \
            for (int k = 0; k < 4; k++) ur[r][k] = _mm512_loadu_si512(u + r * cp + (e) + 64 * k); \
            sr[r] = _mm512_loadu_ps(sc + r * ng + (g0));                                          \
            mr[r] = _mm512_loadu_ps(mn + r * ng + (g0));                                          \
        }                                                                                         \
        for (int t = 0; t < T; t++) {                                                             \
            __m512 dt = _mm512_loadu_ps(ad[t] + (g0)), st = _mm512_loadu_ps(as[t] + (g0));       \
            const int8_t *at = a[t] + (e);                                                        \
            for (int r = 0; r < R; r++) {                                                         \
                __m512i s = _mm512_dpbusd_epi32(_mm512_setzero_si512(), ur[r][0], _mm512_loadu_si512(at)); \
                s = _mm512_dpbusd_epi32(s, ur[r][1], _mm512_loadu_si512(at + 64));                \
                s = _mm512_dpbusd_epi32(s, ur[r][2], _mm512_loadu_si512(at + 128));               \
                s = _mm512_dpbusd_epi32(s, ur[r][3], _mm512_loadu_si512(at + 192));               \
                acc[r][t] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(s), _mm512_mul_ps(sr[r], dt), acc[r][t]); \
                acc[r][t] = _mm512_fmadd_ps(mr[r], st, acc[r][t]);                                \
            }                                                                                     \
        }                                                                                         \
    } while (0)

/// A tail piece of 128 (ymm, 8 groups) or 64 (xmm, 4 groups) elements in narrower vectors,
/// which Zen 4 runs at twice the rate of zmm ones; each (row, token) result is added into its
/// zmm accumulator once. VF/VI: vector types; P: intrinsic prefix; LI: integer load; Z: integer
/// zero; ZX: zero-extension to zmm.
#define PIECE_NARROW(e, g0, vb, VF, VI, P, LI, Z, ZX)                                                \
    do {                                                                                          \
        VI ur[2][4];                                                                              \
        VF sr[2], mr[2];                                                                          \
        for (int r = 0; r < R; r++) {                                                             \
            for (int k = 0; k < 4; k++) ur[r][k] = LI((const VI *)(u + r * cp + (e) + (vb) * k)); \
            sr[r] = P##_loadu_ps(sc + r * ng + (g0));                                             \
            mr[r] = P##_loadu_ps(mn + r * ng + (g0));                                             \
        }                                                                                         \
        for (int t = 0; t < T; t++) {                                                             \
            VF dt = P##_loadu_ps(ad[t] + (g0)), st = P##_loadu_ps(as[t] + (g0));                  \
            const int8_t *at = a[t] + (e);                                                        \
            for (int r = 0; r < R; r++) {                                                         \
                VI s = P##_dpbusd_epi32(Z(), ur[r][0], LI((const VI *)at));   \
                s = P##_dpbusd_epi32(s, ur[r][1], LI((const VI *)(at + (vb))));                   \
                s = P##_dpbusd_epi32(s, ur[r][2], LI((const VI *)(at + 2 * (vb))));               \
                s = P##_dpbusd_epi32(s, ur[r][3], LI((const VI *)(at + 3 * (vb))));               \
                VF f = P##_fmadd_ps(P##_cvtepi32_ps(s), P##_mul_ps(sr[r], dt), P##_mul_ps(mr[r], st)); \
                acc[r][t] = _mm512_add_ps(acc[r][t], ZX(f));                                      \
            }                                                                                     \
        }                                                                                         \
    } while (0)

/// The four sums of a, b, c and d, in one vector.
AVX512_INLINE __m128 hsum4(__m512 a, __m512 b, __m512 c, __m512 d) {
#define FOLD(v) _mm256_add_ps(_mm512_castps512_ps256(v), _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1)))
    __m256 h = _mm256_hadd_ps(_mm256_hadd_ps(FOLD(a), FOLD(b)), _mm256_hadd_ps(FOLD(c), FOLD(d)));
#undef FOLD
    return _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
}

/// R rows (codes u, row stride cp; scales sc and mins mn, row stride ng) x T tokens.
AVX512_INLINE void micro(int R, int T, int64_t cp, const uint8_t *u, const float *sc, const float *mn,
                         const int8_t *const a[4], const float *const ad[4], const float *const as[4], float res[2][4]) {
    int64_t ng = cp / 16;
    __m512 acc[2][4];
    for (int r = 0; r < 2; r++)
        for (int t = 0; t < 4; t++) acc[r][t] = _mm512_setzero_ps();
    int64_t e = 0;
    for (; e + 256 <= cp; e += 256) PIECE16(e, e / 16);
    if (cp - e >= 128) {
        PIECE_NARROW(e, e / 16, 32, __m256, __m256i, _mm256, _mm256_loadu_si256, _mm256_setzero_si256, _mm512_zextps256_ps512);
        e += 128;
    }
    if (cp - e >= 64) PIECE_NARROW(e, e / 16, 16, __m128, __m128i, _mm, _mm_loadu_si128, _mm_setzero_si128, _mm512_zextps128_ps512);
    for (int r = 0; r < R; r++) _mm_storeu_ps(res[r], hsum4(acc[r][0], acc[r][1], acc[r][2], acc[r][3]));
}
#undef PIECE16
#undef PIECE_NARROW

#define MICRO_CASE(R, T) case (R) * 8 + (T): micro(R, T, cp, u, sc, mn, a, ad, as, res); break;

static AVX512_FN void micro_any(int R, int T, int64_t cp, const uint8_t *u, const float *sc, const float *mn,
                                const int8_t *const a[4], const float *const ad[4], const float *const as[4],
                                float res[2][4]) {
    switch (R * 8 + T) {
    MICRO_CASE(2, 4) MICRO_CASE(2, 3) MICRO_CASE(2, 2) MICRO_CASE(2, 1)
    MICRO_CASE(1, 4) MICRO_CASE(1, 3) MICRO_CASE(1, 2) MICRO_CASE(1, 1)
    default: break;
    }
}

AVX512_FN void odk_gemm_rows_avx512(int32_t type, int64_t cols, const void *w, size_t w_row_bytes,
                                    int64_t row_begin, int64_t row_end, const void *panel, int64_t n_tokens,
                                    float *out, int64_t out_stride, void *scratch) {
    size_t prb = odk_gemm_panel_row_bytes_avx512(cols);
    int64_t cp = padded(cols), ng = cp / 16;
    // Scratch: the tile (codes, scales, mins), then one row in odk_gemm_decode_row's form.
    uint8_t *u = (uint8_t *)(((uintptr_t)scratch + 63) & ~(uintptr_t)63);
    float *sc = (float *)(u + GEMM_TILE_ROWS * cp), *mn = sc + GEMM_TILE_ROWS * ng;
    uint8_t *tmp_u = (uint8_t *)(((uintptr_t)(mn + GEMM_TILE_ROWS * ng) + 63) & ~(uintptr_t)63);
    float *tmp_s8 = (float *)(tmp_u + cp);
    for (int64_t rb = row_begin; rb < row_end; rb += GEMM_TILE_ROWS) {
        int64_t nr = row_end - rb < GEMM_TILE_ROWS ? row_end - rb : GEMM_TILE_ROWS;
        for (int64_t r = 0; r < nr; r++)
            decode_row(type, (const char *)w + (rb + r) * w_row_bytes, cols, cp, u + r * cp, sc + r * ng,
                       mn + r * ng, tmp_u, tmp_s8);
        for (int64_t t0 = 0; t0 < n_tokens; t0 += 4) {
            int T = n_tokens - t0 < 4 ? (int)(n_tokens - t0) : 4;
            const int8_t *a[4];
            const float *ad[4], *as[4];
            for (int t = 0; t < 4; t++) {
                const int8_t *row = (const int8_t *)((const char *)panel + (t0 + (t < T ? t : 0)) * prb);
                a[t] = row;
                ad[t] = (const float *)(row + cp);
                as[t] = ad[t] + ng;
            }
            for (int64_t r = 0; r < nr; r += 2) {
                int R = nr - r < 2 ? 1 : 2;
                float res[2][4];
                micro_any(R, T, cp, u + r * cp, sc + r * ng, mn + r * ng, a, ad, as, res);
                for (int rr = 0; rr < R; rr++)
                    for (int t = 0; t < T; t++) out[(t0 + t) * out_stride + rb + r + rr] = res[rr][t];
            }
        }
    }
}
#else
void odk_gemm_rows_avx512(int32_t type, int64_t cols, const void *w, size_t w_row_bytes,
                          int64_t row_begin, int64_t row_end, const void *panel, int64_t n_tokens,
                          float *out, int64_t out_stride, void *scratch) {
    (void)type; (void)cols; (void)w; (void)w_row_bytes; (void)row_begin; (void)row_end;
    (void)panel; (void)n_tokens; (void)out; (void)out_stride; (void)scratch;
}

static void decode_row(int32_t t, const void *row, int64_t cols, int64_t cp, uint8_t *u, float *sc, float *mn,
                       uint8_t *tmp_u, float *tmp_s8) {
    decode_row_portable(t, row, cols, cp, 0, u, sc, mn, tmp_u, tmp_s8);
}
#endif

void odk_gemm_tile_row_avx512(int32_t t, const void *row, int64_t cols, uint8_t *u, float *sc, float *mn,
                              void *scratch, int portable) {
    int64_t cp = padded(cols);
    uint8_t *tmp_u = (uint8_t *)(((uintptr_t)scratch + 63) & ~(uintptr_t)63);
    float *tmp_s8 = (float *)(tmp_u + cp);
    if (portable) decode_row_portable(t, row, cols, cp, 0, u, sc, mn, tmp_u, tmp_s8);
    else decode_row(t, row, cols, cp, u, sc, mn, tmp_u, tmp_s8);
}
