// The token panel of the batched matrix-vector kernels (batch.h): portable C, run once per call
// over n_tokens x cols bytes, against rows x cols x n_tokens products in the kernels.
#include <stdlib.h>
#include "batch.h"

static _Thread_local batch_block *panel_memory;
static _Thread_local int64_t panel_blocks;

batch_block *odk_batch_panel(int64_t blocks) {
    if (blocks <= panel_blocks) return panel_memory;
    int64_t grown = blocks > 2 * panel_blocks ? blocks : 2 * panel_blocks;
    void *p = NULL;
    if (posix_memalign(&p, 64, (size_t)grown * sizeof(batch_block)) != 0) return NULL;
    free(panel_memory);
    panel_memory = p;
    panel_blocks = grown;
    return panel_memory;
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
