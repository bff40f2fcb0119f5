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
    return (size_t)(GEMM_TILE_ROWS * (cp + 8 * (cp / 16)) + cp + cols + cp / 4 + 4 * 64);
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

/// dst (cp bytes) = the permuted layout of src's `cols` codes, zero-padded.
static void permute_codes(const uint8_t *src, int64_t cols, int64_t cp, uint8_t *dst) {
    for (int64_t e = 0; e < cp; e += 4) {
        uint8_t *d = dst + permuted(e, cp);
        if (e < cols) memcpy(d, src + e, 4);
        else memset(d, 0, 4);
    }
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

/// One weight row into the tile: permuted codes u[cp], scale and min per group (ng of each).
static void decode_row(int32_t t, const void *row, int64_t cols, int64_t cp, uint8_t *u, float *sc, float *mn,
                       uint8_t *tmp_u, float *tmp_s8) {
    int64_t ng = cp / 16, g = 0;
    if (t == T_Q8_0) {
        const blk_q8_0 *x = row;
        for (int64_t b = 0; b < cols / QK; b++) {
            float d = h2f(x[b].d);
            for (int j = 0; j < QK; j++) tmp_u[b * QK + j] = (uint8_t)x[b].qs[j] ^ 0x80;  // q + 128
            sc[2 * b] = sc[2 * b + 1] = d;
            mn[2 * b] = mn[2 * b + 1] = -128 * d;
        }
    } else {
        odk_gemm_decode_row(t, row, cols, tmp_u, tmp_s8, mn);
        for (g = 0; g < cols / 16; g++) sc[g] = tmp_s8[(g / 2) * 8 + (g % 2) * 4];
    }
    for (g = cols / 16; g < ng; g++) sc[g] = mn[g] = 0;
    permute_codes(tmp_u, cols, cp, u);
}

#if defined(__x86_64__) || defined(__i386__)

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
    (void)panel; (void)n_tokens; (void)out; (void)out_stride; (void)scratch; (void)decode_row;
}
#endif
