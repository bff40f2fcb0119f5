// Internal: the token panel of the batched matrix-vector kernels (dot_batch.h) and their tier
// entry points.
#ifndef ONDEVICE_CKERNELS_BATCH_H
#define ONDEVICE_CKERNELS_BATCH_H
#include "blocks.h"

/// One 32-element activation block of up to 8 tokens, token-major per 4-element group:
/// q[g][4t + k] is token t's element 4g + k. d[t] is token t's scale; m[t] is, for Q8_1
/// activations, the float d * sum(qs) and otherwise the int32 offset * sum(qs) (offset: the
/// weight format's code offset). Lanes past the token count are zero.
typedef struct {
    _Alignas(32) int8_t q[8][32];
    float d[8];
    int32_t m[8];
} batch_block;

typedef void (*batch_fn)(int64_t nb, const void *w, size_t rb, int nr, const batch_block *p, float out[4][8]);

/// This thread's panel of at least `blocks` blocks (grown on demand, kept for the thread's
/// next call, freed when the thread exits); NULL when memory runs out.
batch_block *odk_batch_panel(int64_t blocks);

/// The tier's code offset for weight type `t` (the panel's sum term), or -1 when the tier has
/// no batched kernel for it. x86 only, as the two below.
int odk_avx2_batch_offset(int32_t t);
int odk_avx512_batch_offset(int32_t t);

/// out[t * stride + r] for r in [row_begin, row_end), t in [0, n_tokens) with the tier's batched
/// kernel over a filled panel; 0 (nothing written) when the tier has none for this weight type.
int odk_avx2_batch_panel_rows(int32_t t, int64_t cols, const void *w, size_t rb, int64_t row_begin,
                              int64_t row_end, const batch_block *panel, int64_t n_tokens, float *out,
                              int64_t stride);
int odk_avx512_batch_panel_rows(int32_t t, int64_t cols, const void *w, size_t rb, int64_t row_begin,
                                int64_t row_end, const batch_block *panel, int64_t n_tokens, float *out,
                                int64_t stride);
#endif
