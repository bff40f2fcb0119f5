// Kernel tier: the best SIMD level this CPU has, capped by the ONDEVICE_KERNELS environment
// variable. Decided once, at the first dispatch; every kernel entry point asks odk_tier().
//
// Tiers, lowest first: scalar < avx2 < avx512 on x86 (avx512 is F+BW+VL with VNNI, the
// vpdpbusd byte dot product, as on Ice Lake, Sapphire Rapids and Zen 4); scalar < neon < dotprod < i8mm on aarch64 (plain
// NEON is part of the AArch64 base ISA; dotprod is SDOT/UDOT, FEAT_DotProd, optional from
// Armv8.2; i8mm is SMMLA, FEAT_I8MM, optional from Armv8.2 and required from Armv8.6).
// The variable is a cap, not a demand: the tier is the best the CPU has that is not above it.
// A value naming the other architecture's tier, or no tier at all, is ignored.
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "blocks.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#elif defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
// Bit numbers from the kernel's arch/arm64/include/uapi/asm/hwcap.h, for older libc headers.
#ifndef HWCAP_ASIMDDP
#define HWCAP_ASIMDDP (1UL << 20)
#endif
#ifndef HWCAP2_I8MM
#define HWCAP2_I8MM (1UL << 13)
#endif
#elif defined(__aarch64__) && defined(__APPLE__)
#include <sys/sysctl.h>
#endif

static const char *const tier_names[] = {
    [ODK_TIER_SCALAR] = "scalar", [ODK_TIER_AVX2] = "avx2", [ODK_TIER_AVX512] = "avx512",
    [ODK_TIER_NEON] = "neon",
    [ODK_TIER_DOTPROD] = "neon-dotprod", [ODK_TIER_I8MM] = "neon-i8mm",
};

#if defined(__aarch64__) && defined(__APPLE__)
static int sysctl_flag(const char *name) {
    int v = 0;
    size_t len = sizeof(v);
    return sysctlbyname(name, &v, &len, NULL, 0) == 0 && v != 0;
}
#endif

#if defined(__x86_64__) || defined(__i386__)
/// AVX-512 F, BW, VL and VNNI in CPUID leaf 7, and the OS saving the opmask and all 32 ZMM
/// registers on context switches (XCR0 bits 5-7, besides the SSE and AVX state in bits 1-2).
/// A CPU flag alone is not enough: a kernel or hypervisor may leave the ZMM state off.
static int has_avx512_vnni(void) {
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE)) return 0;
    unsigned xcr0_lo, xcr0_hi;
    __asm__ volatile("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
    if ((xcr0_lo & 0xE6) != 0xE6) return 0;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return 0;
    unsigned ebx_need = (1u << 16) | (1u << 30) | (1u << 31);  // AVX512F, AVX512BW, AVX512VL
    return (b & ebx_need) == ebx_need && (c & (1u << 11)) != 0;  // ECX bit 11: AVX512_VNNI
}
#endif

/// The best tier the CPU supports, ignoring the cap.
static int cpu_tier(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    int avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
               __builtin_cpu_supports("f16c");
    if (!avx2) return ODK_TIER_SCALAR;
    return has_avx512_vnni() ? ODK_TIER_AVX512 : ODK_TIER_AVX2;
#elif defined(__aarch64__)
    int dotprod = 0, i8mm = 0;
#if defined(__linux__)
    unsigned long hw = getauxval(AT_HWCAP), hw2 = getauxval(AT_HWCAP2);
    dotprod = (hw & HWCAP_ASIMDDP) != 0;
    i8mm = (hw2 & HWCAP2_I8MM) != 0;
#elif defined(__APPLE__)
    dotprod = sysctl_flag("hw.optional.arm.FEAT_DotProd");
    i8mm = sysctl_flag("hw.optional.arm.FEAT_I8MM");
#endif
    // The i8mm kernels also use SDOT, so i8mm without dotprod (no shipping core) stays at neon.
    return dotprod ? (i8mm ? ODK_TIER_I8MM : ODK_TIER_DOTPROD) : ODK_TIER_NEON;
#else
    return ODK_TIER_SCALAR;
#endif
}

/// The tier named by `cap`, or -1 when it names none.
static int parse_tier(const char *cap) {
    if (!strcasecmp(cap, "dotprod")) return ODK_TIER_DOTPROD;
    if (!strcasecmp(cap, "i8mm")) return ODK_TIER_I8MM;
    for (int t = 0; t < (int)(sizeof(tier_names) / sizeof(tier_names[0])); t++)
        if (!strcasecmp(cap, tier_names[t])) return t;
    return -1;
}

static int is_arm_tier(int t) { return t >= ODK_TIER_NEON; }

int odk_tier_capped(int best, const char *cap) {
    int c = cap ? parse_tier(cap) : -1;
    if (c < 0) return best;
    if (c == ODK_TIER_SCALAR) return ODK_TIER_SCALAR;
    if (best == ODK_TIER_SCALAR || is_arm_tier(c) != is_arm_tier(best)) return best;
    return c < best ? c : best;
}

// Relaxed atomics: every thread computes the same answer, so a race only repeats the work.
static _Atomic int tier_state = -1;

int odk_tier(void) {
    int s = atomic_load_explicit(&tier_state, memory_order_relaxed);
    if (s < 0) {
        s = odk_tier_capped(cpu_tier(), getenv("ONDEVICE_KERNELS"));
        atomic_store_explicit(&tier_state, s, memory_order_relaxed);
    }
    return s;
}

int odk_cpu_tier(void) { return cpu_tier(); }

// The AVX-512 tier runs the AVX2 kernels wherever it has none of its own.
int odk_has_avx2(void) { return odk_tier() == ODK_TIER_AVX2 || odk_tier() == ODK_TIER_AVX512; }

int odk_has_avx512(void) { return odk_tier() == ODK_TIER_AVX512; }

const char *odk_kernel_tier(void) { return tier_names[odk_tier()]; }

const char *odk_tier_name(int tier) {
    return tier >= 0 && tier <= ODK_TIER_I8MM ? tier_names[tier] : "unknown";
}
