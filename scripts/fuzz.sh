#!/usr/bin/env bash
# Fuzzes every parser of outside bytes with libFuzzer and AddressSanitizer (both ship in the
# Swift toolchain), then prints one summary line per target.
#
#   scripts/fuzz.sh [--runs N | --time SECONDS] [--jobs J] [TARGET...]
#
# Each target (`ondevice-fuzz list`) runs N executions (default) or for SECONDS, from its
# corpus in .build/fuzz-corpus/<target>, which grows across runs, seeded by the built-in seeds
# (`ondevice-fuzz seeds`) and the small real files the model store holds. A crash, a sanitizer
# report, a hang over 10 s or 2 GB of memory is a finding: its input is kept in
# .build/fuzz-findings/<target>/ and the script exits 1. Copy a finding into
# Tests/FuzzingTests/Regressions/<target>/ once it is fixed; the unit tests replay them all.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=1000000
time=""
jobs=1
targets=()
while [ $# -gt 0 ]; do
    case "$1" in
        --runs) runs="$2"; time=""; shift 2 ;;
        --time) time="$2"; shift 2 ;;
        --jobs) jobs="$2"; shift 2 ;;
        -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
        *) targets+=("$1"); shift ;;
    esac
done

build=.build/fuzz
swift build -c release --build-path "$build" --product ondevice-fuzz \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -use-ld=lld -Xlinker --undefined=LLVMFuzzerRunDriver >&2
fuzz="$build/release/ondevice-fuzz"
[ ${#targets[@]} -gt 0 ] || mapfile -t targets < <("$fuzz" list | cut -f1)

seeds=.build/fuzz-seeds
rm -rf "$seeds"
"$fuzz" seeds "$seeds" >&2
# Small real files, where the model store has them (none is needed: the built-in seeds suffice).
store="${ONDEVICE_HOME:-${XDG_DATA_HOME:-$HOME/.local/share}/ondevice/models}"
add() {  # add TARGET FILE...
    local target="$1"; shift
    for f in "$@"; do
        if [ -f "$f" ] && [ "$(stat -c %s "$f")" -le 1048576 ]; then cp "$f" "$seeds/$target/real-$(basename "$f")"; fi
    done
}
shopt -s nullglob
add piper-config "$store"/*/piper-voices/*/*/*.onnx.json
add wordpiece "$store"/sentence-transformers/*/*/*/tokenizer.json "$store"/sentence-transformers/*/*/*/vocab.txt
add json "$store"/Systran/*/*/*/config.json "$store"/sentence-transformers/*/*/*/config.json
add image ../shared/golden/vision2/ocr/images/p0[1-5]* ../shared/golden/vision2/faces/images/f02*
add wav ../shared/golden/tts/t01_hello*.wav
shopt -u nullglob

mkdir -p .build/fuzz-corpus .build/fuzz-findings .build/fuzz-logs
export ASAN_OPTIONS="detect_leaks=0:allocator_may_return_null=1:${ASAN_OPTIONS:-}"
# Swift's own backtracer would catch a trap first and trip AddressSanitizer reading memory;
# libFuzzer's handler then reports it as the crash it is.
export SWIFT_BACKTRACE=enable=no
run_one() {
    local target="$1" max corpus findings log
    max=$("$fuzz" list | awk -F'\t' -v t="$target" '$1 == t { print $2 }')
    corpus=.build/fuzz-corpus/$target findings=.build/fuzz-findings/$target log=.build/fuzz-logs/$target.log
    mkdir -p "$corpus" "$findings"
    local limit=("-runs=$runs")
    [ -n "$time" ] && limit=("-max_total_time=$time")
    local start=$SECONDS status=0
    "$fuzz" "$target" "${limit[@]}" -max_len="$max" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$findings/" "$corpus" "$seeds/$target" >"$log" 2>&1 || status=$?
    local executed coverage
    executed=$(grep -ao 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1 || echo 0)
    coverage=$(grep -ao 'cov: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*' || echo 0)
    local found
    found=$(find "$findings" -type f | wc -l)
    printf '%-18s %10s executions %6ss  cov %6s  corpus %6s  findings %s%s\n' "$target" "${executed:-0}" \
        "$((SECONDS - start))" "${coverage:-0}" "$(find "$corpus" -type f | wc -l)" "$found" \
        "$([ "$status" -ne 0 ] && echo "  (exit $status: $log)")"
}
export -f run_one
export fuzz runs time seeds
printf '%s\n' "${targets[@]}" | xargs -P "$jobs" -I{} bash -c 'run_one {}' | tee .build/fuzz-summary.txt
! grep -q 'findings [1-9]\|(exit' .build/fuzz-summary.txt
