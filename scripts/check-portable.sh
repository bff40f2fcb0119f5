#!/usr/bin/env bash
# Compiles the non-Linux code paths on Linux: ONDEVICE_PORTABLE_CHECK (to Swift and C) makes every
# `#if os(Linux) && !ONDEVICE_PORTABLE_CHECK` branch take its portable side, which uses only
# POSIX names Glibc shares with Darwin. Catches a Linux-only API slipping into a portable path
# without a macOS SDK. It cannot compile `#if canImport(Darwin)` spellings (a Darwin struct
# field, SO_NOSIGPIPE); those stay small and are listed in each module's POSIX.swift.
#
# A debug build (compiling is the point) in a separate build path, so the normal build's products stay untouched. Compile only: binaries
# built this way are not for running (on Linux their sends may raise SIGPIPE).
set -euo pipefail
cd "$(dirname "$0")/.."
# Every product, so every target but the tests: the library, the CLI and server, and the
# fuzzing and benchmark executables with TestSupport's loopback server.
swift build --build-path .build/portable \
    -Xswiftc -DONDEVICE_PORTABLE_CHECK -Xcc -DONDEVICE_PORTABLE_CHECK
echo "check-portable: the portable code paths compile"
