#!/bin/bash
# The extra cost of the identity join (docs/gate-rules.md §4 "beyond") on
# `peergate --simulate hgx-b200-8x gate`: with the simulated CUDA driver (the gate starts
# the `cuda-visible` helper) against `--cuda-lib /nonexistent` (no driver: no helper, the
# index rules). Runs alternate between the two so the load of a shared machine hits both
# alike. Prints mean wall and CPU (user + sys, children included) per run.
# Usage: bench/identity_join_bench.sh [BUILD_DIR] [RUNS]   (default build/dev, 20)
set -euo pipefail
build=${1:-build/dev}
runs=${2:-20}
pg="$build/bin/peergate"
[ -x "$pg" ] || { echo "no $pg: build it first" >&2; exit 2; }

one() {  # "wall cpu" in seconds for one run of the command given
    local TIMEFORMAT='%R %U %S' t
    t=$( { time ("$@" >/dev/null 2>&1 || true) ; } 2>&1 )
    echo "$t"
}

"$pg" --simulate hgx-b200-8x gate >/dev/null || true  # warm: materialise the host root once
with=() without=()
for ((i = 0; i < runs; i++)); do
    with+=("$(one "$pg" --simulate hgx-b200-8x gate)")
    without+=("$(one "$pg" --simulate hgx-b200-8x --cuda-lib /nonexistent gate)")
done
mean() {  # label, then "wall user sys" triples
    local label=$1; shift
    printf '%s\n' "$@" | awk -v label="$label" '{ w += $1; c += $2 + $3; n++ }
        END { printf "%-46s wall %7.2f ms   cpu %7.2f ms\n", label, w * 1000 / n, c * 1000 / n }'
}
echo "runs: $runs each, build: $build, load: $(cut -d' ' -f1-3 /proc/loadavg)"
mean "gate, no CUDA driver (--cuda-lib /nonexistent)" "${without[@]}"
mean "gate, simulated CUDA driver (identity join)" "${with[@]}"
