// The token panel of the batched matrix-vector kernels (batch.h) and their public entry points
// (od_kernels.h): portable C, run once per matmul over n_tokens x cols bytes, against rows x
// cols x n_tokens products in the kernels.
#include <pthread.h>
#include <stdlib.h>
#include "batch.h"

// Each thread's panel, freed when the thread exits: ops run on threads of their own, so a
// panel kept past its thread would be a leak per request.
typedef struct {
    batch_block *blocks;
    int64_t count;
} thread_panel;

static pthread_key_t panel_key;
static pthread_once_t panel_once = PTHREAD_ONCE_INIT;

static void free_panel(void *p) {
    thread_panel *panel = p;
    free(panel->blocks);
    free(panel);
}

static void make_panel_key(void) { pthread_key_create(&panel_key, free_panel); }

batch_block *odk_batch_panel(int64_t blocks) {
    pthread_once(&panel_once, make_panel_key);
    thread_panel *panel = pthread_getspecific(panel_key);
    if (!panel) {
        panel = calloc(1, sizeof(thread_panel));
        if (!panel || pthread_setspecific(panel_key, panel) != 0) {
            free(panel);
            return NULL;
        }
    }
    if (blocks <= panel->count) return panel->blocks;
    int64_t grown = blocks > 2 * panel->count ? blocks : 2 * panel->count;
    void *p = NULL;
    if (posix_memalign(&p, 64, (size_t)grown * sizeof(batch_block)) != 0) return NULL;
    free(panel->blocks);
    panel->blocks = p;
    panel->count = grown;
    return panel->blocks;
}

/// Lays out `count` (1-8) activation rows (`act_type` Q8_0 or Q8_1, rows `ab` bytes apart) of
/// `nb` blocks into `panel`.
static void prepare_group(int32_t act_type, int offset, const void *act, size_t ab, int count, int64_t nb,
                          batch_block *panel) {
    memset(panel, 0, (size_t)nb * sizeof(batch_block));
    for (int t = 0; t < count; t++) {
        const char *row = (const char *)act + (size_t)t * ab;
        for (int64_t i = 0; i < nb; i++) {
            batch_block *p = &panel[i];
            const int8_t *qs;
            if (act_type == T_Q8_1) {
                const blk_q8_1 *y = (const blk_q8_1 *)row + i;
                qs = y->qs;
                p->d[t] = h2f(y->d);
                float s = h2f(y->s);
                memcpy(&p->m[t], &s, 4);
            } else {
                const blk_q8_0 *y = (const blk_q8_0 *)row + i;
                qs = y->qs;
                p->d[t] = h2f(y->d);
                int sum = 0;
                for (int j = 0; j < QK; j++) sum += qs[j];
                p->m[t] = offset * sum;
            }
            for (int g = 0; g < 8; g++) memcpy(&p->q[g][4 * t], qs + 4 * g, 4);
        }
    }
}

/// The tier's code offset for weight type `t`, or -1 when it has no batched kernel for it.
static int batch_offset(int32_t t) {
#if defined(__x86_64__) || defined(__i386__)
    int tier = odk_tier();
    if (tier == ODK_TIER_AVX512) return odk_avx512_batch_offset(t);
    if (tier == ODK_TIER_AVX2) return odk_avx2_batch_offset(t);
#else
    (void)t;
#endif
    return -1;
}

size_t odk_batch_panel_bytes(int32_t t, int64_t cols, int64_t n_tokens) {
    if (n_tokens < 4 || cols % QK != 0 || batch_offset(t) < 0) return 0;
    return (size_t)((n_tokens + 7) / 8) * (size_t)(cols / QK) * sizeof(batch_block);
}

void odk_batch_fill_panel(int32_t t, int64_t cols, const void *act, size_t ab, int64_t n_tokens, void *panel) {
    int offset = batch_offset(t);
    if (offset < 0) return;
    int64_t nb = cols / QK;
    batch_block *p = panel;
    for (int64_t g = 0; 8 * g < n_tokens; g++) {
        int64_t count = n_tokens - 8 * g < 8 ? n_tokens - 8 * g : 8;
        prepare_group(odk_activation_type(t), offset, (const char *)act + 8 * g * ab, ab, (int)count, nb, p + g * nb);
    }
}

void odk_batch_rows(int32_t t, int64_t cols, const void *w, size_t w_row_bytes, int64_t row_begin, int64_t row_end,
                    const void *panel, int64_t n_tokens, float *out, int64_t out_stride) {
#if defined(__x86_64__) || defined(__i386__)
    int tier = odk_tier();
    if (tier == ODK_TIER_AVX512)
        odk_avx512_batch_panel_rows(t, cols, w, w_row_bytes, row_begin, row_end, panel, n_tokens, out, out_stride);
    else if (tier == ODK_TIER_AVX2)
        odk_avx2_batch_panel_rows(t, cols, w, w_row_bytes, row_begin, row_end, panel, n_tokens, out, out_stride);
#else
    (void)t, (void)cols, (void)w, (void)w_row_bytes, (void)row_begin, (void)row_end, (void)panel;
    (void)n_tokens, (void)out, (void)out_stride;
#endif
}
