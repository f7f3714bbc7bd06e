#!/usr/bin/env bash
# Builds the libFuzzer targets (the fuzz preset: clang, ASan + UBSan, the parsers
# instrumented for coverage) and runs each for SECONDS (default 60) on its seeds. New inputs
# go to a scratch corpus under OUT (default build/fuzz-runs), crashes to OUT/crashes/<name>/.
# Exit status 1 when any target found a crash, a leak or a broken invariant.
#
#   scripts/fuzz.sh [SECONDS] [NAME...]     # e.g. scripts/fuzz.sh 300 machine_file cpu_list
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
shift || true
out="${OUT:-build/fuzz-runs}"
if ! command -v clang++ >/dev/null; then
    echo "scripts/fuzz.sh: libFuzzer needs clang (apt-get install clang)" >&2
    exit 2
fi

cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j "${JOBS:-2}"

names=("$@")
if [ ${#names[@]} -eq 0 ]; then
    for source in fuzz/*_fuzz.cpp; do
        name="$(basename "$source" _fuzz.cpp)"
        names+=("$name")
    done
fi

failed=0
for name in "${names[@]}"; do
    mkdir -p "$out/corpus/$name" "$out/crashes/$name"
    seeds=()
    [ -d "fuzz/corpus/$name" ] && seeds+=("fuzz/corpus/$name")
    [ "$name" = machine_file ] && seeds+=(tests/fixtures/machines)
    log="$out/$name.log"
    if ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
        "build/fuzz/fuzz/peergate_${name}_fuzz" -max_total_time="$seconds" -timeout=10 \
        -rss_limit_mb=4096 -artifact_prefix="$out/crashes/$name/" \
        "$out/corpus/$name" "${seeds[@]}" >"$log" 2>&1; then
        echo "$name: ok, $(grep -oE '^#[0-9]+' "$log" | tail -1 | tr -d '#') runs"
    else
        echo "$name: FAILED, see $log and $out/crashes/$name/"
        failed=1
    fi
done
exit "$failed"
