#!/usr/bin/env bash
# Holds every SIMD tier of the CKernels C target to its scalar twin (Tests/CKernelsNEON/
# kernel_tiers.c): natively for AVX2 and, where the CPU has it, AVX-512 (then again capped at
# avx2, so both x86 tiers run through the public dispatch), and for aarch64 cross-compiled and run under qemu-user,
# once per CPU model so each NEON tier runs on a CPU that has exactly its features:
#   cortex-a53  plain NEON          cortex-a76  NEON + dotprod          max  NEON + dotprod + i8mm
# The aarch64 build is made twice: with Debian's aarch64-linux-gnu-gcc, and with the Swift
# toolchain's clang (--target=aarch64-linux-gnu over the same Debian sysroot), the compiler
# SwiftPM uses on ARM. Emulation checks correctness only; it says nothing about ARM speed.
#
#   scripts/test-kernels-arm.sh
#
# Installs gcc-aarch64-linux-gnu and qemu-user with apt-get when missing. Prints one summary
# line per tier and run; exits 1 on any mismatch.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=()
command -v aarch64-linux-gnu-gcc >/dev/null || packages+=(gcc-aarch64-linux-gnu)
command -v qemu-aarch64 >/dev/null || packages+=(qemu-user)
if [ ${#packages[@]} -gt 0 ]; then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo=sudo
    echo "installing ${packages[*]}" >&2
    $sudo apt-get install -y "${packages[@]}" >&2 ||
        { $sudo apt-get update >&2 && $sudo apt-get install -y "${packages[@]}" >&2; }
fi

clang=$(command -v clang || true)
if [ -z "$clang" ] && command -v swift >/dev/null; then
    clang="$(dirname "$(readlink -f "$(command -v swift)")")/clang"
    [ -x "$clang" ] || clang=""
fi

out=.build/kernel-tiers
mkdir -p "$out"
sources=(Sources/CKernels/*.c Tests/CKernelsNEON/kernel_tiers.c)
flags=(-O2 -std=gnu11 -Wall -Wextra -ISources/CKernels -ISources/CKernels/include)
sysroot=/usr/aarch64-linux-gnu

failed=0
# run LABEL EXPECTED-TIER [ENV...] -- COMMAND...: one harness run, its lines prefixed by LABEL.
run() {
    local label="$1" expect="$2"
    shift 2
    local env=()
    while [ "$1" != "--" ]; do env+=("$1"); shift; done
    shift
    local status=0
    env ${env[@]+"${env[@]}"} "$@" --expect "$expect" > "$out/log" 2>&1 || status=$?
    label=$(printf '%-22s' "$label")
    sed "s/^/$label/" "$out/log"
    if [ "$status" -ne 0 ]; then
        failed=1
        echo "${label}FAILED (exit $status)"
    fi
}

# Native x86: the best tier, the avx2 cap when that is avx512, then the scalar cap.
native_cc="${clang:-cc}"
"$native_cc" "${flags[@]}" "${sources[@]}" -lm -o "$out/native"
# The tier this CPU should get, from the kernel's own flags rather than the harness.
native_tier=scalar
if grep -qw avx2 /proc/cpuinfo && grep -qw fma /proc/cpuinfo && grep -qw f16c /proc/cpuinfo; then
    native_tier=avx2
    if grep -qw avx512f /proc/cpuinfo && grep -qw avx512bw /proc/cpuinfo && grep -qw avx512vl /proc/cpuinfo &&
            grep -qw avx512_vnni /proc/cpuinfo; then
        native_tier=avx512
    fi
fi
run "native $native_tier" "$native_tier" -- "$out/native"
if [ "$native_tier" = avx512 ]; then
    run "native cap=avx2" avx2 ONDEVICE_KERNELS=avx2 -- "$out/native"
fi
run "native cap=scalar" scalar ONDEVICE_KERNELS=scalar -- "$out/native"

# aarch64 builds.
arm_bins=()
aarch64-linux-gnu-gcc "${flags[@]}" "${sources[@]}" -lm -o "$out/arm-gcc"
arm_bins+=(gcc)
if [ -n "$clang" ] && "$clang" --target=aarch64-linux-gnu "${flags[@]}" "${sources[@]}" -lm \
        -o "$out/arm-clang" 2> "$out/clang.log"; then
    arm_bins+=(clang)
else
    echo "note: no aarch64 build with the toolchain clang (${clang:-not found}):" >&2
    tail -5 "$out/clang.log" >&2 2>/dev/null || true
fi

for cc in "${arm_bins[@]}"; do
    bin="$out/arm-$cc"
    qemu=(qemu-aarch64 -L "$sysroot")
    run "$cc cortex-a53" neon -- "${qemu[@]}" -cpu cortex-a53 "$bin"
    run "$cc cortex-a76" neon-dotprod -- "${qemu[@]}" -cpu cortex-a76 "$bin"
    run "$cc max" neon-i8mm -- "${qemu[@]}" -cpu max "$bin"
    run "$cc max cap=neon" neon ONDEVICE_KERNELS=neon -- "${qemu[@]}" -cpu max "$bin"
    run "$cc max cap=scalar" scalar ONDEVICE_KERNELS=scalar -- "${qemu[@]}" -cpu max "$bin"
done

if [ "$failed" -ne 0 ]; then
    echo "test-kernels-arm: FAILED"
    exit 1
fi
echo "test-kernels-arm: every tier matches its scalar twin"
