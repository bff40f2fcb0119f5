// The token panel of the batched matrix-vector kernels (batch.h): portable C, run once per call
// over n_tokens x cols bytes, against rows x cols x n_tokens products in the kernels.
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

void odk_batch_prepare(int32_t act_type, int offset, const void *act, size_t ab, int count, int64_t nb,
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
