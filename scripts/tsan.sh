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
# Every lock is a pthread mutex (`Platform.Locked`), which TSan sees. Synchronization.Mutex was
# not: on Linux its contended path waits on a futex inside the uninstrumented Swift runtime, so
# TSan reported accesses ordered by a contended Mutex as races (HTTPServer's `stopping`, a run of
# 2026-12-04).
#
# Left out by default, because TSan itself fails them, not a race: ChatPageTests (headless
# Chromium against the in-process server times out under TSan's slowdown), ToolBudgetServerTests
# (Qwen 2.5 decoding under TSan runs past the client's 120 s) and MixedResidencyTests (it holds
# measured RSS to the models' estimates; TSan's shadow memory inflates RSS). SKIP overrides.
set -euo pipefail
cd "$(dirname "$0")/.."

filter="${1:-Residency|Lease|Download|Runtime|Stream|Cancel|ServerTests|HTTP|VoiceSession|OwnThreads|ChatSession|Admission}"
skip="${SKIP-ChatPageTests|ToolBudgetServerTests|MixedResidencyTests}"
build=.build/tsan
mkdir -p "$build"
export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:log_path=$PWD/$build/report:${TSAN_OPTIONS:-}"
export SWIFT_BACKTRACE=enable=no
swift build -c release --build-tests --build-path "$build" --sanitize=thread >&2
rm -f "$build"/report.*  # an earlier run's reports are not this run's
status=0
swift test -c release --skip-build --build-path "$build" --sanitize=thread --filter "$filter" ${skip:+--skip "$skip"} 2>&1 | tee "$build/tests.log" || status=$?
reports=$(find "$build" -maxdepth 1 -name "report.*" | wc -l)
echo "tsan: $(grep -cE '^✔ Test ' "$build/tests.log") tests passed, $(grep -cE '^✘ Test ' "$build/tests.log") failed, $reports race reports"
[ "$status" -eq 0 ] && [ "$reports" -eq 0 ]
