#!/bin/sh
# The whole `peergate --simulate hgx-b200-8x gate` process (start, seams, simulated
# nvidia-smi topo -m + --query-gpu, host root, decision, JSON), against baselines in the
# same run: `peergate --version` (process start and CLI parsing only) and one run of the
# simulated nvidia-smi's topo -m (the tier-2 subprocess the gate waits for).
# Usage: bench/gate_process_bench.sh [BUILD_DIR] [RUNS]   (default build/bench, 200)
set -eu
build=${1:-build/bench}
runs=${2:-200}
pg="$build/bin/peergate"
smi="$build/libexec/peergate/peergate-sim-nvidia-smi"
machine="$build/share/peergate/machines/hgx-b200-8x.json"
[ -x "$pg" ] || { echo "no $pg: build it first" >&2; exit 2; }

# Mean wall time per run, in ms, of the command given as arguments.
time_runs() {
    start=$(date +%s%N)
    i=0
    while [ "$i" -lt "$runs" ]; do
        "$@" >/dev/null 2>&1 || true
        i=$((i + 1))
    done
    end=$(date +%s%N)
    echo "$(( (end - start) / runs / 1000 ))" | awk '{ printf "%.2f", $1 / 1000 }'
}

"$pg" --simulate hgx-b200-8x gate >/dev/null  # warm: materialise the host root once
version=$(time_runs "$pg" --version)
topo=$(PEERGATE_SIM_MACHINE="$machine" time_runs "$smi" topo -m)
gate=$(time_runs "$pg" --simulate hgx-b200-8x gate)
gate_json=$(time_runs "$pg" --simulate hgx-b200-8x gate --json --gpus all --for all)
echo "runs: $runs"
echo "peergate --version (baseline):                      $version ms"
echo "sim nvidia-smi topo -m (baseline):                  $topo ms"
echo "peergate --simulate hgx-b200-8x gate:               $gate ms"
echo "peergate --simulate hgx-b200-8x gate --json --for all: $gate_json ms"
awk -v g="$gate" -v v="$version" 'BEGIN { printf "gate / --version: %.1fx\n", g / v }'
