// NEON dot kernels for the K-quants against Q8_K activations, with and without SDOT (the
// kernels are in dot_neon_tmpl.h). Every 16 elements form one int8x16 vector and one scale
// group; codes are decoded to signed int8 (offsets applied in the vector), so no bsum
// correction is needed except the mins of Q2_K/Q4_K/Q5_K.
#include "neon.h"
#if defined(__aarch64__)

#define NEON_TMPL_KQUANTS
#include "dot_neon_tiers.h"
#undef NEON_TMPL_KQUANTS

odk_dot_fn odk_neon_kernel_kquant(int32_t t, int tier);

odk_dot_fn odk_neon_kernel_kquant(int32_t t, int tier) {
    int dp = tier >= ODK_TIER_DOTPROD;
    switch (t) {
    case T_Q2_K: return dp ? dot_q2_K_dotprod : dot_q2_K_neon;
    case T_Q3_K: return dp ? dot_q3_K_dotprod : dot_q3_K_neon;
    case T_Q4_K: return dp ? dot_q4_K_dotprod : dot_q4_K_neon;
    case T_Q5_K: return dp ? dot_q5_K_dotprod : dot_q5_K_neon;
    case T_Q6_K: return dp ? dot_q6_K_dotprod : dot_q6_K_neon;
    default: return NULL;
    }
}
#endif
