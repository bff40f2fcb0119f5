// Holds every SIMD kernel tier of CKernels to its portable scalar twin: dot kernels of every
// weight type over awkward row lengths and random blocks (extreme and zero scales included),
// the activation quantizers byte for byte, the vector ops, the prefill GEMM forms (AVX2 and
// AVX-512), and the public dispatch (odk_vec_dot, odk_matmul_rows, odk_kernel_tier). A plain C
// program, not a SwiftPM target: scripts/test-kernels-arm.sh builds it natively (AVX2 and, where
// the CPU has it, AVX-512 tier) and for aarch64 under qemu (NEON, dotprod and i8mm tiers, one
// qemu CPU model each).
//
// Usage: kernel_tiers [--expect TIER]   (TIER as odk_kernel_tier() names it)
// Checks every tier from the lowest SIMD one up to the CPU's best, ignoring ONDEVICE_KERNELS;
// the public dispatch runs at the capped tier. Prints one summary line per tier and exits 1
// on any mismatch. Errors are normalized like llama.cpp's test-backend-ops:
// sqrt(sum (simd - scalar)^2 / sum scalar^2) over the rows of a case.
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "blocks.h"
#include "gemm.h"
#include "od_lora.h"

#if defined(__x86_64__) || defined(__i386__)
void odk_quantize_q8_0_avx2(const float *x, void *dst, int64_t k);
void odk_quantize_q8_1_avx2(const float *x, void *dst, int64_t k);
void odk_quantize_q8_K_avx2(const float *x, void *dst, int64_t k);
#endif

#define TOLERANCE 1e-5   // normalized error of a float-rounding difference
#define ROWS 6           // rows per case

#include "random_blocks.h"

// ---- checking -----------------------------------------------------------------------------

typedef struct {
    const char *name;
    int tier;
    int kernels, cases, failures;
    double max_err;
} tally;

static void fail(tally *t, const char *what, const char *detail) {
    t->failures++;
    if (t->failures <= 20) fprintf(stderr, "MISMATCH [%s] %s: %s\n", t->name, what, detail);
}

static int same_float(float a, float b) { return a == b || (isnan(a) && isnan(b)); }

/// Normalized error of `got` against `want` (n values); infinities and NaNs must agree exactly.
static double normalized_error(const float *got, const float *want, int n) {
    double num = 0, den = 0;
    for (int i = 0; i < n; i++) {
        if (!isfinite(want[i]) || !isfinite(got[i])) {
            if (!same_float(got[i], want[i])) return INFINITY;
            continue;
        }
        double d = (double)got[i] - (double)want[i];
        num += d * d;
        den += (double)want[i] * (double)want[i];
    }
    if (den == 0) return num == 0 ? 0 : INFINITY;
    return sqrt(num / den);
}

static void record_tol(tally *t, const char *what, const float *got, const float *want, int n, int exact,
                       double tolerance) {
    t->cases++;
    double e = normalized_error(got, want, n);
    if (isfinite(e) && e > t->max_err) t->max_err = e;
    char detail[160];
    if (exact) {
        for (int i = 0; i < n; i++) {
            if (!same_float(got[i], want[i])) {
                snprintf(detail, sizeof detail, "row %d: %.9g, scalar %.9g (must be exact)", i, got[i], want[i]);
                fail(t, what, detail);
                return;
            }
        }
    } else if (!(e <= tolerance)) {
        snprintf(detail, sizeof detail, "normalized error %.3g > %.0e (row 0: %.9g, scalar %.9g)", e, tolerance,
                 got[0], want[0]);
        fail(t, what, detail);
    }
}

static void record(tally *t, const char *what, const float *got, const float *want, int n, int exact) {
    record_tol(t, what, got, want, n, exact, TOLERANCE);
}

/// The tier's one-row kernel for a weight type (NULL: the tier has none of its own; the avx512
/// tier's are the AVX2 ones, checked as that tier).
static odk_dot_fn tier_kernel(int tier, int32_t type) {
    if (tier == ODK_TIER_AVX2) return odk_avx2_kernel(type);
    return odk_neon_kernel(type, tier);
}

static void check_dots(tally *t) {
    static const int64_t float_cols[] = {1, 3, 7, 8, 15, 16, 17, 33, 100, 255, 1000, 4099};
    static const int64_t block_cols[] = {32, 64, 96, 160, 224, 1056, 4128};
    static const int64_t kquant_cols[] = {256, 512, 768, 1280, 2816, 4096};
    for (int ti = 0; ti < N_TYPES; ti++) {
        const wtype *ty = &types[ti];
        odk_dot_fn simd = tier_kernel(t->tier, ty->type), scalar = odk_scalar_kernel(ty->type);
        if (!simd) continue;
        t->kernels++;
        const int64_t *cols_list = ty->block == 1 ? float_cols : ty->block == 32 ? block_cols : kquant_cols;
        int n_cols = ty->block == 1 ? 12 : ty->block == 32 ? 7 : 6;
        int32_t act = odk_activation_type(ty->type);
        for (int ci = 0; ci < n_cols; ci++) {
            int64_t cols = cols_list[ci];
            size_t rb = row_bytes(ty, cols), ab = odk_activation_row_bytes(ty->type, cols);
            uint8_t *w = malloc(rb * ROWS), *a = malloc(ab + 64);
            float *x = malloc((size_t)cols * sizeof(float));
            float got[ROWS], want[ROWS];
            char what[64];
            // Random blocks, ordinary then extreme scales, activations through the quantizer.
            for (int extreme = 0; extreme < 2; extreme++) {
                fill_activations(x, cols);
                odk_quantize_activations_scalar(ty->type, x, a, cols);
                for (int r = 0; r < ROWS; r++) {
                    fill_weights(ty, w + r * rb, cols, extreme, 0);
                    got[r] = simd(cols, w + r * rb, a);
                    want[r] = scalar(cols, w + r * rb, a);
                }
                snprintf(what, sizeof what, "dot %s cols %lld%s", ty->name, (long long)cols, extreme ? " extreme" : "");
                record(t, what, got, want, ROWS, 0);
            }
            // Integer exactness: unit scales, codes small enough that every sum fits a float.
            int64_t exact_cols = ty->block == 256 ? 256 : cols <= 512 ? cols : 512;
            if (ty->block > 1 && cols == cols_list[0]) {
                int amp = ty->block == 256 ? 15 : 127;
                unit_activations(act, a, exact_cols, amp);
                for (int r = 0; r < ROWS; r++) {
                    fill_weights(ty, w + r * rb, exact_cols, 0, 1);
                    got[r] = simd(exact_cols, w + r * rb, a);
                    want[r] = scalar(exact_cols, w + r * rb, a);
                }
                snprintf(what, sizeof what, "dot %s cols %lld unit scales", ty->name, (long long)exact_cols);
                record(t, what, got, want, ROWS, 1);
            }
            free(w), free(a), free(x);
        }
    }
#if defined(__x86_64__) || defined(__i386__)
    // Four rows against one token (decode) and against two (batched decode steps), on this
    // tier's kernels: every (row, token) against the scalar kernel.
    if (t->tier == ODK_TIER_AVX2 || t->tier == ODK_TIER_AVX512) {
        for (int ti = 0; ti < N_TYPES; ti++) {
            const wtype *ty = &types[ti];
            int avx512 = t->tier == ODK_TIER_AVX512;
            odk_dot4_fn fn4 = avx512 ? odk_avx512_kernel4(ty->type) : odk_avx2_kernel4(ty->type);
            odk_dot4x2_fn fn42 = avx512 ? odk_avx512_kernel4x2(ty->type) : odk_avx2_kernel4x2(ty->type);
            if (!fn4 || !fn42) continue;
            t->kernels += 2;
            odk_dot_fn scalar = odk_scalar_kernel(ty->type);
            static const int64_t cols42[] = {32, 96, 1056};
            for (int ci = 0; ci < 3; ci++) {
                int64_t cols = cols42[ci];
                size_t rb = row_bytes(ty, cols), ab = odk_activation_row_bytes(ty->type, cols);
                uint8_t *w = malloc(4 * rb), *a = malloc(2 * ab);
                float *x = malloc((size_t)cols * sizeof(float));
                for (int extreme = 0; extreme < 2; extreme++) {
                    for (int r = 0; r < 4; r++) fill_weights(ty, w + r * rb, cols, extreme, 0);
                    for (int k = 0; k < 2; k++) {
                        fill_activations(x, cols);
                        odk_quantize_activations_scalar(ty->type, x, a + k * ab, cols);
                    }
                    float got[8], want[8];
                    fn42(cols, w, rb, a, ab, got, got + 4);
                    for (int k = 0; k < 2; k++)
                        for (int r = 0; r < 4; r++) want[4 * k + r] = scalar(cols, w + r * rb, a + k * ab);
                    char what[64];
                    snprintf(what, sizeof what, "dot4x2 %s cols %lld%s", ty->name, (long long)cols, extreme ? " extreme" : "");
                    record(t, what, got, want, 8, 0);
                    // A token alone through the four-row kernel gives what it gets in a pair.
                    float alone[4];
                    fn4(cols, w, rb, a + ab, alone);
                    snprintf(what, sizeof what, "dot4 %s cols %lld%s", ty->name, (long long)cols, extreme ? " extreme" : "");
                    record(t, what, alone, got + 4, 4, 1);
                }
                free(w), free(a), free(x);
            }
        }
    }
#endif
    // Two-by-two SMMLA kernels: every (row, token) of a pair against the scalar kernel.
    if (t->tier < ODK_TIER_I8MM) return;
    for (int ti = 0; ti < N_TYPES; ti++) {
        const wtype *ty = &types[ti];
        odk_dot2x2_fn fn2 = odk_i8mm_kernel2x2(ty->type);
        if (!fn2) continue;
        t->kernels++;
        odk_dot_fn scalar = odk_scalar_kernel(ty->type);
        static const int64_t cols2[] = {32, 96, 1056}, kcols2[] = {256, 512, 1280};
        for (int ci = 0; ci < 3; ci++) {
            int64_t cols = ty->block == 256 ? kcols2[ci] : cols2[ci];
            size_t rb = row_bytes(ty, cols), ab = odk_activation_row_bytes(ty->type, cols);
            uint8_t *w = malloc(2 * rb), *a = malloc(2 * ab);
            float *x = malloc((size_t)cols * sizeof(float));
            for (int extreme = 0; extreme < 2; extreme++) {
                for (int r = 0; r < 2; r++) {
                    fill_weights(ty, w + r * rb, cols, extreme, 0);
                    fill_activations(x, cols);
                    odk_quantize_activations_scalar(ty->type, x, a + r * ab, cols);
                }
                float got[4], want[4];
                fn2(cols, w, rb, a, ab, got);
                for (int r = 0; r < 2; r++)
                    for (int k = 0; k < 2; k++) want[2 * r + k] = scalar(cols, w + r * rb, a + k * ab);
                char what[64];
                snprintf(what, sizeof what, "dot2x2 %s cols %lld%s", ty->name, (long long)cols, extreme ? " extreme" : "");
                record(t, what, got, want, 4, 0);
            }
            free(w), free(a), free(x);
        }
    }
}

typedef void (*quantizer)(const float *x, void *dst, int64_t k);

static quantizer tier_quantizer(int tier, int32_t act) {
#if defined(__x86_64__) || defined(__i386__)
    if (tier == ODK_TIER_AVX2)
        return act == T_Q8_0 ? odk_quantize_q8_0_avx2 : act == T_Q8_1 ? odk_quantize_q8_1_avx2 : odk_quantize_q8_K_avx2;
#endif
#if defined(__aarch64__)
    if (tier >= ODK_TIER_NEON)
        return act == T_Q8_0 ? odk_quantize_q8_0_neon : act == T_Q8_1 ? odk_quantize_q8_1_neon : odk_quantize_q8_K_neon;
#endif
    (void)tier, (void)act;
    return NULL;
}

static void check_quantizers(tally *t) {
    // Weight types whose activation formats are Q8_0, Q8_1 and Q8_K.
    static const int32_t via[] = {T_Q8_0, T_Q4_1, T_Q4_K};
    static const char *names[] = {"q8_0", "q8_1", "q8_K"};
    static const int64_t cols_list[] = {256, 512, 4096};
    for (int q = 0; q < 3; q++) {
        quantizer simd = tier_quantizer(t->tier, odk_activation_type(via[q]));
        if (!simd) continue;
        t->kernels++;
        for (int ci = 0; ci < 3; ci++) {
            int64_t cols = cols_list[ci];
            size_t ab = odk_activation_row_bytes(via[q], cols);
            float *x = malloc((size_t)cols * sizeof(float));
            uint8_t *got = malloc(ab), *want = malloc(ab);
            for (int rep = 0; rep < 4; rep++) {
                fill_activations(x, cols);
                if (rep == 3) for (int64_t j = 0; j < cols; j++) x[j] = 0;  // all-zero row
                simd(x, got, cols);
                odk_quantize_activations_scalar(via[q], x, want, cols);
                t->cases++;
                if (memcmp(got, want, ab) != 0) {
                    size_t at = 0;
                    while (got[at] == want[at]) at++;
                    char what[64], detail[96];
                    snprintf(what, sizeof what, "quantize %s cols %lld", names[q], (long long)cols);
                    snprintf(detail, sizeof detail, "byte %zu differs (%u, scalar %u); must be bit-identical",
                             at, got[at], want[at]);
                    fail(t, what, detail);
                }
            }
            free(x), free(got), free(want);
        }
    }
}

/// The prefill GEMM forms (gemm.h) against the scalar kernels: odd row counts (a 16-row tile
/// plus a remainder, two-row pairs plus a single row) and token counts (quads plus a remainder),
/// row lengths that leave every padding piece of the AVX-512 layout. Q4_1/Q5_1 take a looser
/// bound: the scalar kernels use the Q8_1 block's f16-rounded d * sum, the GEMM the float sum
/// of the codes (as the Swift MatMul tests allow for).
/// With unit scales every output is an integer both compute exactly.
static void check_gemm(tally *t) {
#if defined(__x86_64__) || defined(__i386__)
    int avx512 = t->tier == ODK_TIER_AVX512;
    if (t->tier != ODK_TIER_AVX2 && !avx512) return;
    int (*supports)(int32_t) = avx512 ? odk_gemm_supports_avx512 : odk_gemm_supports_avx2;
    size_t (*panel_bytes)(int64_t) = avx512 ? odk_gemm_panel_row_bytes_avx512 : odk_gemm_panel_row_bytes_avx2;
    void (*prepare)(int32_t, int64_t, const void *, size_t, int64_t, void *) =
        avx512 ? odk_gemm_prepare_avx512 : odk_gemm_prepare_avx2;
    void (*rows)(int32_t, int64_t, const void *, size_t, int64_t, int64_t, const void *, int64_t, float *, int64_t,
                 void *) = avx512 ? odk_gemm_rows_avx512 : odk_gemm_rows_avx2;
    enum { GR = 19, GT = 7 };
    static const int64_t block_cols[] = {32, 64, 96, 160, 224, 576, 640, 896, 1056};
    static const int64_t kquant_cols[] = {256, 512, 768, 1280, 2816};
    for (int ti = 0; ti < N_TYPES; ti++) {
        const wtype *ty = &types[ti];
        if (!supports(ty->type)) continue;
        t->kernels++;
        odk_dot_fn scalar = odk_scalar_kernel(ty->type);
        int32_t act = odk_activation_type(ty->type);
        double tolerance = act == T_Q8_1 ? 2e-3 : TOLERANCE;
        const int64_t *cols_list = ty->block == 32 ? block_cols : kquant_cols;
        int n_cols = ty->block == 32 ? 9 : 5;
        for (int ci = 0; ci < n_cols; ci++) {
            int64_t cols = cols_list[ci];
            size_t rb = row_bytes(ty, cols), ab = odk_activation_row_bytes(ty->type, cols);
            uint8_t *w = malloc(GR * rb), *a = malloc(GT * ab), *panel = malloc(GT * panel_bytes(cols));
            void *scratch = malloc(odk_gemm_scratch_bytes(cols));
            float *x = malloc((size_t)cols * sizeof(float)), got[GT * GR], want[GT * GR];
            for (int kind = 0; kind < 3; kind++) {  // ordinary, extreme scales, unit scales
                if (kind == 2 && ci > 1) break;
                int64_t c = kind == 2 && ty->block == 256 ? 256 : cols;
                for (int r = 0; r < GR; r++) fill_weights(ty, w + r * rb, c, kind == 1, kind == 2);
                for (int k = 0; k < GT; k++) {
                    if (kind == 2) {
                        unit_activations(act, a + k * ab, c, ty->block == 256 ? 15 : 127);
                        continue;
                    }
                    fill_activations(x, c);
                    // Keep Q8_1's f16 d * sum finite: the large blocks would overflow it to inf,
                    // which the scalar kernels then return while the GEMM's float sum does not.
                    if (act == T_Q8_1)
                        for (int64_t j = 0; j < c; j++) x[j] *= 1e-4f;
                    odk_quantize_activations_scalar(ty->type, x, a + k * ab, c);
                }
                prepare(ty->type, c, a, ab, GT, panel);
                if (kind == 1) {  // two row ranges, the second starting mid-tile
                    rows(ty->type, c, w, rb, 0, 8, panel, GT, got, GR, scratch);
                    rows(ty->type, c, w, rb, 8, GR, panel, GT, got, GR, scratch);
                } else {
                    rows(ty->type, c, w, rb, 0, GR, panel, GT, got, GR, scratch);
                }
                for (int k = 0; k < GT; k++)
                    for (int r = 0; r < GR; r++) want[k * GR + r] = scalar(c, w + r * rb, a + k * ab);
                char what[64];
                static const char *kinds[] = {"", " extreme", " unit scales"};
                snprintf(what, sizeof what, "gemm %s cols %lld%s", ty->name, (long long)c, kinds[kind]);
                record_tol(t, what, got, want, GT * GR, kind == 2, tolerance);
            }
            free(w), free(a), free(panel), free(scratch), free(x);
        }
    }
#else
    (void)t;
#endif
}

static void check_vector_ops(tally *t) {
#if defined(__aarch64__)
    if (t->tier < ODK_TIER_NEON) return;
    static const int64_t sizes[] = {1, 3, 4, 5, 8, 17, 64, 100, 1000, 4097};
    enum { N_OPS = 7 };
    static const char *ops[N_OPS] = {"rms_norm", "softmax", "silu", "add", "mul", "add_scaled", "scale"};
    t->kernels += N_OPS;
    for (int op = 0; op < N_OPS; op++) {
        for (int si = 0; si < 10; si++) {
            int64_t n = sizes[si];
            float *a = malloc((size_t)n * 4), *b = malloc((size_t)n * 4);
            float *got = malloc((size_t)n * 4), *want = malloc((size_t)n * 4);
            for (int64_t i = 0; i < n; i++) {
                a[i] = uniform(-1, 1) * powf(10.0f, uniform(-2, op == 1 ? 1.5f : 2));
                b[i] = uniform(-2, 2);
                got[i] = want[i] = uniform(-1, 1);
            }
            if (op == 1 && n > 4) a[n / 2] = -INFINITY;  // a masked attention score
            float s = uniform(-3, 3);
            switch (op) {
            case 0: odk_rms_norm_neon(a, si % 2 ? b : NULL, got, n, 1e-6f);
                    odk_rms_norm_scalar(a, si % 2 ? b : NULL, want, n, 1e-6f); break;
            case 1: memcpy(got, a, (size_t)n * 4); memcpy(want, a, (size_t)n * 4);
                    odk_softmax_neon(got, n); odk_softmax_scalar(want, n); break;
            case 2: odk_silu_neon(a, got, n); odk_silu_scalar(a, want, n); break;
            case 3: odk_add_neon(a, b, got, n); odk_add_scalar(a, b, want, n); break;
            case 4: odk_mul_neon(a, b, got, n); odk_mul_scalar(a, b, want, n); break;
            case 5: odk_add_scaled_neon(a, s, got, n); odk_add_scaled_scalar(a, s, want, n); break;
            default: memcpy(got, a, (size_t)n * 4); memcpy(want, a, (size_t)n * 4);
                     odk_scale_neon(got, s, n); odk_scale_scalar(want, s, n); break;
            }
            char what[64];
            snprintf(what, sizeof what, "%s n %lld", ops[op], (long long)n);
            record(t, what, got, want, (int)n, 0);
            free(a), free(b), free(got), free(want);
        }
    }
#else
    (void)t;
#endif
}

/// A LoRA up projection (od_lora_up_f16) at the tier in use against its scalar twin: ranks 8
/// and 16, output counts with and without a remainder past the groups of eight.
static void check_lora_up(tally *t) {
    static const int64_t ranks[] = {8, 16}, outs[] = {8, 13, 579};
    t->kernels++;
    for (int ri = 0; ri < 2; ri++) {
        for (int oi = 0; oi < 3; oi++) {
            int64_t rank = ranks[ri], n = outs[oi], full = n & ~(int64_t)7;
            uint16_t *rows = malloc((size_t)(n * rank) * 2), *blocked = malloc((size_t)(n * rank) * 2 + 2);
            float *mid = malloc((size_t)rank * 4), *got = malloc((size_t)n * 4), *want = malloc((size_t)n * 4);
            for (int64_t i = 0; i < n * rank; i++) rows[i] = odk_fp32_to_fp16(uniform(-1, 1) * 0.05f);
            for (int64_t j = 0; j < full; j++)
                for (int64_t k = 0; k < rank; k++) blocked[((j / 8) * rank + k) * 8 + j % 8] = rows[j * rank + k];
            for (int64_t k = 0; k < rank; k++) mid[k] = uniform(-4, 4);
            float *ref = malloc((size_t)n * 4);
            for (int64_t j = 0; j < n; j++) got[j] = want[j] = ref[j] = uniform(-1, 1);
            float scale = uniform(0.1f, 2);
            od_lora_up_f16(blocked, rows, mid, rank, n, scale, got);
            od_lora_up_f16_scalar(blocked, rows, mid, rank, n, scale, want);
            char what[64];
            snprintf(what, sizeof what, "od_lora_up_f16 rank %lld n %lld", (long long)rank, (long long)n);
            record(t, what, got, want, (int)n, 0);
            // The scalar twin against B's own rows, summed in double: the regrouping is right.
            for (int64_t j = 0; j < n; j++) {
                double s = 0;
                for (int64_t k = 0; k < rank; k++) s += (double)mid[k] * odk_fp16_to_fp32(rows[j * rank + k]);
                ref[j] = (float)(ref[j] + scale * s);
            }
            snprintf(what, sizeof what, "od_lora_up_f16_scalar rank %lld n %lld", (long long)rank, (long long)n);
            record(t, what, want, ref, (int)n, 0);
            // A·x for stacked A's (a layer's query, key and value: three ranks of rows), x
            // rounded to f16 by the kernel, each result rounded to f16: the tier in use and the
            // scalar twin against sums in double. A flip in a result's f16 rounding moves it by
            // about 1e-3 of its size.
            int64_t in = 96 + 16 * ri + 32 * oi, stacked = rank * (1 + oi);
            uint16_t *a = malloc((size_t)(in * stacked) * 2), *ab = malloc((size_t)(in * stacked) * 2);
            float *x = malloc((size_t)in * 4), *m = malloc((size_t)stacked * 4), *ms = malloc((size_t)stacked * 4),
                  *mref = malloc((size_t)stacked * 4);
            for (int64_t i = 0; i < in * stacked; i++) a[i] = odk_fp32_to_fp16(uniform(-1, 1) * 0.1f);
            for (int64_t i = 0; i < in; i++) x[i] = uniform(-2, 2);
            for (int64_t k = 0; k < stacked; k++) {
                double d = 0;
                for (int64_t i = 0; i < in; i++) d += (double)odk_fp16_to_fp32(a[k * in + i]) * odk_fp16_to_fp32(odk_fp32_to_fp16(x[i]));
                mref[k] = odk_fp16_to_fp32(odk_fp32_to_fp16((float)d));
            }
            // The kernels read A blocked (od_lora.h); the reference reads it by rows.
            for (int64_t k = 0; k < stacked; k++)
                for (int64_t i = 0; i < in; i++) ab[((k / 8) * (in / 16) + i / 16) * 128 + (k % 8) * 16 + i % 16] = a[k * in + i];
            // The packing functions write those layouts.
            uint16_t *pa = calloc((size_t)(in * stacked), 2), *pb = malloc((size_t)(n * rank) * 2);
            for (int64_t k = 0; k < stacked; k += rank) od_lora_pack_a(a + k * in, in, rank, pa + k * in);
            od_lora_pack_b(rows, rank, n, pb);
            t->cases++;
            if (memcmp(pa, ab, (size_t)(in * stacked) * 2) != 0) fail(t, "od_lora_pack_a", "layout differs from the blocked reference");
            t->cases++;
            if (memcmp(pb, blocked, (size_t)(full * rank) * 2) != 0 || memcmp(pb + full * rank, rows + full * rank, (size_t)((n - full) * rank) * 2) != 0)
                fail(t, "od_lora_pack_b", "layout differs from the regrouped reference");
            free(pa), free(pb);
            od_lora_down_f16(ab, in, stacked, x, m);
            od_lora_down_f16_scalar(ab, in, stacked, x, ms);
            snprintf(what, sizeof what, "od_lora_down_f16 rows %lld in %lld", (long long)stacked, (long long)in);
            record_tol(t, what, m, mref, (int)stacked, 0, 2e-3);
            snprintf(what, sizeof what, "od_lora_down_f16_scalar rows %lld in %lld", (long long)stacked, (long long)in);
            record_tol(t, what, ms, mref, (int)stacked, 0, 2e-3);
            // Several tokens at once (prompts): each token's floats are its own call's.
            enum { T = 5 };
            float *xs = malloc((size_t)(T * in) * 4), *mt = malloc((size_t)(T * stacked) * 4), *m1 = malloc((size_t)stacked * 4);
            float *outs = malloc((size_t)(T * n) * 4), *init = malloc((size_t)(T * n) * 4), *out1 = malloc((size_t)n * 4);
            for (int64_t i = 0; i < T * in; i++) xs[i] = uniform(-2, 2);
            for (int64_t i = 0; i < T * n; i++) outs[i] = init[i] = uniform(-1, 1);
            od_lora_down_f16_tokens(ab, in, stacked, xs, in, T, mt, stacked);
            od_lora_up_f16_tokens(blocked, rows, mt, stacked, rank, n, T, scale, outs, n);
            for (int tk = 0; tk < T; tk++) {
                od_lora_down_f16(ab, in, stacked, xs + tk * in, m1);
                snprintf(what, sizeof what, "od_lora_down_f16_tokens token %d rows %lld", tk, (long long)stacked);
                record(t, what, mt + tk * stacked, m1, (int)stacked, 1);
                for (int64_t j = 0; j < n; j++) out1[j] = init[tk * n + j];
                od_lora_up_f16(blocked, rows, mt + tk * stacked, rank, n, scale, out1);
                snprintf(what, sizeof what, "od_lora_up_f16_tokens token %d rank %lld n %lld", tk, (long long)rank, (long long)n);
                record(t, what, outs + tk * n, out1, (int)n, 1);
            }
            free(xs), free(mt), free(m1), free(outs), free(init), free(out1);
            free(a), free(ab), free(x), free(m), free(ms), free(mref), free(ref);
            free(rows), free(blocked), free(mid), free(got), free(want);
        }
    }
}

/// A Q8_0 LoRA A·x (od_lora_down_q8) at the tier in use and its scalar twin against sums in
/// double over the rows as the file holds them: stacked rows (one, two and three ranks of 8),
/// inputs of one to five blocks, each result rounded to f16 (a flip moves it by about 1e-3 of its
/// size); od_lora_pack_a_q8's tiles against a layout built here; several tokens equal to one
/// call each, bit for bit.
static void check_lora_q8(tally *t) {
    static const int64_t ins[] = {32, 96, 160}, ranks[] = {8, 16, 24};
    t->kernels++;
    for (int ii = 0; ii < 3; ii++) {
        for (int ri = 0; ri < 3; ri++) {
            int64_t in = ins[ii], rows = ranks[ri], nb = in / 32, tile = 272;
            uint8_t *a = malloc((size_t)(rows * nb * 34)), *packed = calloc((size_t)(rows * nb), 34), *want = calloc((size_t)(rows * nb), 34);
            float *vals = malloc((size_t)(rows * in) * 4), *x = malloc((size_t)in * 4);
            for (int64_t i = 0; i < rows * in; i++) vals[i] = uniform(-1, 1) * 0.1f;
            for (int64_t r = 0; r < rows; r++) odk_quantize_q8_0(vals + r * in, a + r * nb * 34, in);
            for (int64_t i = 0; i < in; i++) x[i] = uniform(-2, 2);
            uint8_t *xq = malloc((size_t)(nb * 34));
            odk_quantize_q8_0(x, xq, in);
            // The tiles, built from the rows: scales then codes, eight rows a tile.
            for (int64_t r = 0; r < rows; r++)
                for (int64_t b = 0; b < nb; b++) {
                    uint8_t *tl = want + ((r / 8) * nb + b) * tile;
                    memcpy(tl + (r % 8) * 2, a + (r * nb + b) * 34, 2);
                    memcpy(tl + 16 + (r % 8) * 32, a + (r * nb + b) * 34 + 2, 32);
                }
            for (int64_t k = 0; k < rows; k += 8) od_lora_pack_a_q8(a + k * nb * 34, in, 8, packed + k * nb * 34);
            t->cases++;
            if (memcmp(packed, want, (size_t)(rows * nb * 34)) != 0) fail(t, "od_lora_pack_a_q8", "layout differs from the tiled reference");
            float *ref = malloc((size_t)rows * 4), *got = malloc((size_t)rows * 4), *scalar = malloc((size_t)rows * 4);
            for (int64_t r = 0; r < rows; r++) {
                double d = 0;
                for (int64_t b = 0; b < nb; b++) {
                    const uint8_t *w = a + (r * nb + b) * 34, *q = xq + b * 34;
                    uint16_t dw, dx;
                    memcpy(&dw, w, 2), memcpy(&dx, q, 2);
                    long sum = 0;
                    for (int j = 0; j < 32; j++) sum += (long)(int8_t)w[2 + j] * (int8_t)q[2 + j];
                    d += (double)sum * odk_fp16_to_fp32(dw) * odk_fp16_to_fp32(dx);
                }
                ref[r] = odk_fp16_to_fp32(odk_fp32_to_fp16((float)d));
            }
            od_lora_down_q8(packed, in, rows, xq, got);
            od_lora_down_q8_scalar(packed, in, rows, xq, scalar);
            char what[64];
            snprintf(what, sizeof what, "od_lora_down_q8 rows %lld in %lld", (long long)rows, (long long)in);
            record_tol(t, what, got, ref, (int)rows, 0, 2e-3);
            snprintf(what, sizeof what, "od_lora_down_q8_scalar rows %lld in %lld", (long long)rows, (long long)in);
            record_tol(t, what, scalar, ref, (int)rows, 0, 2e-3);
            enum { T = 3 };
            uint8_t *xs = malloc((size_t)(T * nb * 34));
            float *mt = malloc((size_t)(T * rows) * 4), *one = malloc((size_t)rows * 4);
            for (int tk = 0; tk < T; tk++) {
                for (int64_t i = 0; i < in; i++) x[i] = uniform(-2, 2);
                odk_quantize_q8_0(x, xs + tk * nb * 34, in);
            }
            od_lora_down_q8_tokens(packed, in, rows, xs, nb * 34, T, mt, rows);
            for (int tk = 0; tk < T; tk++) {
                od_lora_down_q8(packed, in, rows, xs + tk * nb * 34, one);
                snprintf(what, sizeof what, "od_lora_down_q8_tokens token %d rows %lld", tk, (long long)rows);
                record(t, what, mt + tk * rows, one, (int)rows, 1);
            }
            free(xs), free(mt), free(one), free(ref), free(got), free(scalar);
            free(a), free(packed), free(want), free(vals), free(x), free(xq);
        }
    }
}

/// The public entry points at the tier in use: odk_vec_dot, odk_matmul_rows and on x86 the
/// prefill GEMM (odd row and token counts, so pair and four-row kernels meet their tails)
/// against the scalar kernel.
static void check_lora_up(tally *t);

static void check_dispatch(tally *t) {
    check_lora_up(t);
    check_lora_q8(t);
    enum { R = 7, TK = 19 };
    for (int ti = 0; ti < N_TYPES; ti++) {
        const wtype *ty = &types[ti];
        t->kernels++;
        int64_t cols = ty->block == 256 ? 512 : 96;
        size_t rb = row_bytes(ty, cols), ab = odk_activation_row_bytes(ty->type, cols);
        uint8_t *w = malloc(R * rb), *a = malloc(TK * ab);
        float *x = malloc((size_t)cols * sizeof(float));
        for (int r = 0; r < R; r++) fill_weights(ty, w + r * rb, cols, 0, 0);
        for (int k = 0; k < TK; k++) {
            fill_activations(x, cols);
            odk_quantize_activations(ty->type, x, a + k * ab, cols);
        }
        float got[TK * R], want[TK * R], one[R];
        for (int k = 0; k < TK; k++)
            for (int r = 0; r < R; r++) want[k * R + r] = odk_vec_dot_scalar(ty->type, cols, w + r * rb, a + k * ab);
        char what[64];
        // Token counts for the pair kernels, and for the batched kernels (x86, from 4 tokens):
        // one group of 8 with empty lanes, one full group, and three groups with a partial one.
        static const int token_counts[] = {2, 5, 8, TK};
        for (size_t c = 0; c < sizeof(token_counts) / sizeof(token_counts[0]); c++) {
            int nt = token_counts[c];
            odk_matmul_rows(ty->type, cols, w, rb, 0, R, a, ab, nt, got, R);
            snprintf(what, sizeof what, "odk_matmul_rows %s x%d", ty->name, nt);
            record(t, what, got, want, nt * R, 0);
        }
        for (int r = 0; r < R; r++) one[r] = odk_vec_dot(ty->type, cols, w + r * rb, a);
        snprintf(what, sizeof what, "odk_vec_dot %s", ty->name);
        record(t, what, one, want, R, 0);
        // The public prefill GEMM, in the form of the tier in use (see check_gemm for Q8_1).
        if (odk_has_avx2() && odk_gemm_supports(ty->type)) {
            int q8_1 = odk_activation_type(ty->type) == T_Q8_1;
            for (int k = 0; k < TK; k++) {
                fill_activations(x, cols);
                if (q8_1)
                    for (int64_t j = 0; j < cols; j++) x[j] *= 1e-4f;
                odk_quantize_activations(ty->type, x, a + k * ab, cols);
            }
            uint8_t *panel = malloc(TK * odk_gemm_panel_row_bytes(cols));
            void *scratch = malloc(odk_gemm_scratch_bytes(cols));
            odk_gemm_prepare(ty->type, cols, a, ab, TK, panel);
            odk_gemm_rows(ty->type, cols, w, rb, 0, R, panel, TK, got, R, scratch);
            for (int k = 0; k < TK; k++)
                for (int r = 0; r < R; r++) want[k * R + r] = odk_vec_dot_scalar(ty->type, cols, w + r * rb, a + k * ab);
            snprintf(what, sizeof what, "odk_gemm_rows %s", ty->name);
            record_tol(t, what, got, want, TK * R, 0, q8_1 ? 2e-3 : TOLERANCE);
            free(panel), free(scratch);
        }
        free(w), free(a), free(x);
    }
}

/// ONDEVICE_KERNELS parsing: a cap, case-insensitive, other architectures and junk ignored.
static void check_caps(tally *t) {
    static const struct { int best; const char *cap; int want; } cases[] = {
        {ODK_TIER_AVX2, NULL, ODK_TIER_AVX2},        {ODK_TIER_AVX2, "scalar", ODK_TIER_SCALAR},
        {ODK_TIER_AVX2, "AVX2", ODK_TIER_AVX2},      {ODK_TIER_AVX2, "neon", ODK_TIER_AVX2},
        {ODK_TIER_AVX2, "bogus", ODK_TIER_AVX2},     {ODK_TIER_AVX2, "", ODK_TIER_AVX2},
        {ODK_TIER_I8MM, "dotprod", ODK_TIER_DOTPROD}, {ODK_TIER_I8MM, "neon", ODK_TIER_NEON},
        {ODK_TIER_I8MM, "neon-i8mm", ODK_TIER_I8MM}, {ODK_TIER_NEON, "i8mm", ODK_TIER_NEON},
        {ODK_TIER_DOTPROD, "scalar", ODK_TIER_SCALAR}, {ODK_TIER_DOTPROD, "avx2", ODK_TIER_DOTPROD},
        {ODK_TIER_SCALAR, "neon", ODK_TIER_SCALAR},
        {ODK_TIER_AVX512, NULL, ODK_TIER_AVX512},    {ODK_TIER_AVX512, "avx2", ODK_TIER_AVX2},
        {ODK_TIER_AVX512, "AVX512", ODK_TIER_AVX512}, {ODK_TIER_AVX512, "scalar", ODK_TIER_SCALAR},
        {ODK_TIER_AVX512, "i8mm", ODK_TIER_AVX512},  {ODK_TIER_AVX2, "avx512", ODK_TIER_AVX2},
        {ODK_TIER_I8MM, "avx512", ODK_TIER_I8MM},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int got = odk_tier_capped(cases[i].best, cases[i].cap);
        t->cases++;
        if (got != cases[i].want) {
            char what[64], detail[96];
            snprintf(what, sizeof what, "cap %s on %s", cases[i].cap ? cases[i].cap : "(unset)",
                     odk_tier_name(cases[i].best));
            snprintf(detail, sizeof detail, "tier %s, want %s", odk_tier_name(got), odk_tier_name(cases[i].want));
            fail(t, what, detail);
        }
    }
}

static int summarize(const tally *t, const char *what) {
    printf("%-13s %-26s %2d kernels, %4d cases, max normalized error %.2e, %d mismatches\n", t->name, what,
           t->kernels, t->cases, t->max_err, t->failures);
    return t->failures;
}

/// The AVX-512 GEMM's vector tile decoder against its portable one: the same codes, scales and
/// mins, byte for byte (NaN scales from random halves compare equal as NaN), for row lengths
/// with every tail piece and for ordinary and extreme scales.
static void check_gemm_tiles(tally *t) {
#if defined(__x86_64__) || defined(__i386__)
    if (t->tier != ODK_TIER_AVX512) return;
    static const int64_t block_cols[] = {32, 64, 96, 160, 224, 576, 640, 896, 1056, 4864};
    static const int64_t kquant_cols[] = {256, 512, 768, 1280, 2816};
    for (int ti = 0; ti < N_TYPES; ti++) {
        const wtype *ty = &types[ti];
        if (!odk_gemm_supports_avx512(ty->type)) continue;
        t->kernels++;
        const int64_t *cols_list = ty->block == 32 ? block_cols : kquant_cols;
        int n_cols = ty->block == 32 ? 10 : 5;
        for (int ci = 0; ci < n_cols; ci++) {
            int64_t cols = cols_list[ci], cp = (cols + 63) & ~(int64_t)63;
            uint8_t *w = malloc(row_bytes(ty, cols)), *u[2] = {malloc(cp), malloc(cp)};
            float *sc[2] = {malloc(cp / 16 * sizeof(float)), malloc(cp / 16 * sizeof(float))};
            float *mn[2] = {malloc(cp / 16 * sizeof(float)), malloc(cp / 16 * sizeof(float))};
            void *scratch = malloc(3 * cp + 256);
            for (int kind = 0; kind < 2; kind++) {
                fill_weights(ty, w, cols, kind == 1, 0);
                for (int v = 0; v < 2; v++) {
                    memset(u[v], 0xA5, cp);
                    odk_gemm_tile_row_avx512(ty->type, w, cols, u[v], sc[v], mn[v], scratch, v);
                }
                t->cases++;
                char what[64];
                snprintf(what, sizeof what, "gemm tile %s cols %lld%s", ty->name, (long long)cols, kind ? " extreme" : "");
                if (memcmp(u[0], u[1], cp)) fail(t, what, "codes differ");
                for (int64_t g = 0; g < cp / 16; g++)
                    if (!same_float(sc[0][g], sc[1][g]) || !same_float(mn[0][g], mn[1][g])) {
                        fail(t, what, "a scale or min differs");
                        break;
                    }
            }
            free(w), free(u[0]), free(u[1]), free(sc[0]), free(sc[1]), free(mn[0]), free(mn[1]), free(scratch);
        }
    }
#else
    (void)t;
#endif
}

#if defined(__x86_64__) || defined(__i386__)
/// Resident memory of this process in KiB (Linux /proc; 0 where it cannot be read).
static long resident_kib(void) {
    FILE *f = fopen("/proc/self/statm", "r");
    long size = 0, resident = 0;
    if (!f) return 0;
    if (fscanf(f, "%ld %ld", &size, &resident) != 2) resident = 0;
    fclose(f);
    return resident * 4;
}

enum { PANEL_COLS = 4864, PANEL_TOKENS = 64, PANEL_THREADS = 200 };
static uint8_t *panel_w, *panel_a;

static void *panel_pass(void *arg) {
    (void)arg;
    float out[4 * PANEL_TOKENS];
    odk_matmul_rows(T_Q4_1, PANEL_COLS, panel_w, PANEL_COLS / QK * sizeof(blk_q4_1), 0, 4, panel_a,
                    odk_activation_row_bytes(T_Q4_1, PANEL_COLS), PANEL_TOKENS, out, 4);
    return NULL;
}
#endif

/// The batched kernels' token panel is per thread, and ops run on threads of their own: a
/// panel kept after its thread ends (about 380 KiB here) would leak with every request. x86
/// only, where those kernels are (under qemu-user, threads alone grow the emulator's memory).
static void check_panel_lifetime(tally *t) {
#if defined(__x86_64__) || defined(__i386__)
    t->kernels++;
    panel_w = calloc(4, PANEL_COLS / QK * sizeof(blk_q4_1));
    panel_a = calloc(PANEL_TOKENS, odk_activation_row_bytes(T_Q4_1, PANEL_COLS));
    panel_pass(NULL);  // this thread's panel, and the allocator's first arenas
    long before = resident_kib();
    for (int i = 0; i < PANEL_THREADS; i++) {
        pthread_t thread;
        if (pthread_create(&thread, NULL, panel_pass, NULL) != 0) break;
        pthread_join(thread, NULL);
        t->cases++;
    }
    long grown = resident_kib() - before;
    if (grown > 16 * 1024) {
        char detail[96];
        snprintf(detail, sizeof detail, "resident memory grew %ld KiB over %d short-lived threads", grown, PANEL_THREADS);
        fail(t, "batched kernel panel", detail);
    }
    free(panel_w), free(panel_a);
#else
    (void)t;
#endif
}

int main(int argc, char **argv) {
    const char *expect = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--expect") && i + 1 < argc) expect = argv[++i];
        else { fprintf(stderr, "usage: %s [--expect TIER]\n", argv[0]); return 2; }
    }
    int failures = 0, cpu = odk_cpu_tier();
    const char *env = getenv("ONDEVICE_KERNELS");
    printf("cpu tier %s, tier in use %s (ONDEVICE_KERNELS=%s)\n", odk_tier_name(cpu), odk_kernel_tier(),
           env ? env : "");
    int lowest = cpu == ODK_TIER_AVX2 || cpu == ODK_TIER_AVX512 ? ODK_TIER_AVX2 : ODK_TIER_NEON;
    for (int tier = lowest; tier <= cpu; tier++) {
        tally t = {odk_tier_name(tier), tier, 0, 0, 0, 0};
        check_dots(&t);
        check_quantizers(&t);
        check_vector_ops(&t);
        check_gemm(&t);
        check_gemm_tiles(&t);
        failures += summarize(&t, "vs scalar");
    }
    tally d = {odk_kernel_tier(), odk_tier(), 0, 0, 0, 0};
    check_dispatch(&d);
    check_caps(&d);
    check_panel_lifetime(&d);
    if (expect && strcmp(expect, odk_kernel_tier()) != 0) {
        char detail[96];
        snprintf(detail, sizeof detail, "tier in use %s, expected %s", odk_kernel_tier(), expect);
        fail(&d, "odk_kernel_tier", detail);
    }
    failures += summarize(&d, "public dispatch and caps");
    printf("%s\n", failures ? "FAIL" : "OK");
    return failures ? 1 : 0;
}
