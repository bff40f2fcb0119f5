// Instantiates dot_neon_tmpl.h twice, once per NEON tier: plain NEON (widening multiplies) and
// dotprod (SDOT). Include it with NEON_TMPL_BLOCKS32 or NEON_TMPL_KQUANTS defined to choose the
// kernels.
#define NAME(x) x##_neon
#define TIER_FN
#define DOT8(acc, a, b) dot_s8_plain(acc, a, b)
#include "dot_neon_tmpl.h"
#undef NAME
#undef TIER_FN
#undef DOT8

#define NAME(x) x##_dotprod
#define TIER_FN NEON_DOTPROD
#define DOT8(acc, a, b) vdotq_s32(acc, a, b)
#include "dot_neon_tmpl.h"
#undef NAME
#undef TIER_FN
#undef DOT8
