#!/bin/bash
# The whole `peergate --simulate hgx-b200-8x gate` process (start, seams, simulated
# nvidia-smi topo -m + --query-gpu, host root, decision, output), and doctor's (which also
# reads NVML's P2P status and CUDA's can-access-peer for all 56 ordered pairs) and export's
# (the doctor's reads, the gate's decision on them, one textfile), against baselines in the
# same run: `peergate --version` (process start and CLI parsing only) and one simulated
# `nvidia-smi topo -m` (the tier-2 subprocess the gate waits for). Prints the mean wall time
# and the mean CPU time (user + sys, children included) per run: on a loaded machine the
# CPU time is the steadier figure. `gate --place 4` (the exact search for the best four GPUs
# before the decision) is set against `gate --gpus` naming the four it picks.
# Usage: bench/gate_process_bench.sh [BUILD_DIR] [RUNS]   (default build/bench, 200)
set -euo pipefail
build=${1:-build/bench}
runs=${2:-200}
pg="$build/bin/peergate"
smi="$build/libexec/peergate/peergate-sim-nvidia-smi"
machine="$build/share/peergate/machines/hgx-b200-8x.json"
[ -x "$pg" ] || { echo "no $pg: build it first" >&2; exit 2; }

# "wall_ms cpu_ms" per run of the command given as arguments.
measure() {
    local TIMEFORMAT='%R %U %S' t
    t=$( { time (for ((i = 0; i < runs; i++)); do "$@" >/dev/null 2>&1 || true; done) ; } 2>&1 )
    awk -v n="$runs" -v t="$t" 'BEGIN { split(t, a, " "); printf "%.2f %.2f", a[1] * 1000 / n, (a[2] + a[3]) * 1000 / n }'
}

report() {  # label, "wall cpu"
    printf '%-58s wall %7s ms   cpu %7s ms\n' "$1" ${2}
}

"$pg" --simulate hgx-b200-8x gate >/dev/null || true  # warm: materialise the host root once
version=$(measure "$pg" --version)
export PEERGATE_SIM_MACHINE="$machine"
topo=$(measure "$smi" topo -m)
unset PEERGATE_SIM_MACHINE
gate=$(measure "$pg" --simulate hgx-b200-8x gate)
gate_all=$(measure "$pg" --simulate hgx-b200-8x gate --json --gpus all --for all)
gate_four=$(measure "$pg" --simulate rtx4090-8x-pcie gate --gpus 0,1,2,3)
gate_place=$(measure "$pg" --simulate rtx4090-8x-pcie gate --place 4)
doctor=$(measure "$pg" --simulate hgx-b200-8x doctor --json)
export_prom=$(measure "$pg" --simulate hgx-b200-8x export prometheus)
echo "runs: $runs, build: $build, load: $(cut -d' ' -f1-3 /proc/loadavg)"
report "peergate --version (baseline)" "$version"
report "sim nvidia-smi topo -m (baseline)" "$topo"
report "peergate --simulate hgx-b200-8x gate" "$gate"
report "peergate --simulate hgx-b200-8x gate --json --gpus all --for all" "$gate_all"
report "peergate --simulate rtx4090-8x-pcie gate --gpus 0,1,2,3" "$gate_four"
report "peergate --simulate rtx4090-8x-pcie gate --place 4" "$gate_place"
report "peergate --simulate hgx-b200-8x doctor --json" "$doctor"
report "peergate --simulate hgx-b200-8x export prometheus" "$export_prom"
awk -v g="$gate" -v v="$version" 'BEGIN { split(g, a, " "); split(v, b, " ");
    printf "gate / --version: wall %.1fx, cpu %.1fx\n", a[1] / b[1], a[2] / b[2] }'
awk -v d="$doctor" -v g="$gate" 'BEGIN { split(d, a, " "); split(g, b, " ");
    printf "doctor / gate: wall %.1fx, cpu %.1fx\n", a[1] / b[1], a[2] / b[2] }'
awk -v e="$export_prom" -v d="$doctor" 'BEGIN { split(e, a, " "); split(d, b, " ");
    printf "export prometheus / doctor: wall %.1fx, cpu %.1fx\n", a[1] / b[1], a[2] / b[2] }'
awk -v p="$gate_place" -v g="$gate_four" 'BEGIN { split(p, a, " "); split(g, b, " ");
    printf "gate --place 4 / gate --gpus 0,1,2,3: wall %.2fx, cpu %.2fx\n", a[1] / b[1], a[2] / b[2] }'
