#!/usr/bin/env bash
# Runs the concurrency tests under ThreadSanitizer (it ships in the Swift toolchain): residency,
# leases and downloads, the streams and their cancellation, the server (in-process, with real
# models), voice sessions and the own-threads executor.
#
#   scripts/tsan.sh [FILTER]
#
# FILTER is a `swift test --filter` pattern (default: the suites below). A data race is reported
# by ThreadSanitizer and fails the run (halt_on_error); the report is kept in .build/tsan/report.*.
# A release build of its own in .build/tsan (optimized, so the real-model tests finish), so the
# main build is untouched.
#
# Not clean yet (#21). A run of 2026-12-04 (123 tests) gave one report: HTTPServer's `stopping`
# read and written inside `state.withLock` on two threads. The code orders those correctly; the
# report is what a contended Synchronization.Mutex looks like to TSan on Linux, where the
# uncontended path is an inlined atomic TSan sees but the contended one locks in the futex
# syscall from the uninstrumented runtime, so TSan misses that happens-before edge. Clean runs
# need locks TSan can see (pthread-based, or annotated for TSan builds). Tests that time out
# under TSan's slowdown or measure memory (which its shadow memory inflates) also fail here.
set -euo pipefail
cd "$(dirname "$0")/.."

filter="${1:-Residency|Lease|Download|Runtime|Stream|Cancel|ServerTests|HTTP|VoiceSession|OwnThreads|ChatSession|Admission}"
build=.build/tsan
mkdir -p "$build"
export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:log_path=$PWD/$build/report:${TSAN_OPTIONS:-}"
export SWIFT_BACKTRACE=enable=no
swift build -c release --build-tests --build-path "$build" --sanitize=thread >&2
status=0
swift test -c release --skip-build --build-path "$build" --sanitize=thread --filter "$filter" 2>&1 | tee "$build/tests.log" || status=$?
reports=$(ls "$build"/report.* 2>/dev/null | wc -l)
echo "tsan: $(grep -cE '^✔ Test ' "$build/tests.log") tests passed, $(grep -cE '^✘ Test ' "$build/tests.log") failed, $reports race reports"
[ "$status" -eq 0 ] && [ "$reports" -eq 0 ]
