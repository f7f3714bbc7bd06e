#!/bin/bash
# What `peergate probe --quick` costs (docs/probe.md "Quick mode"): every ordered pair on every
# path (copies, SM stores, SM loads, the flag handshake), one 1 MiB transfer each, all pairs of
# a path at once. Baseline, in the same script: the copy path alone in the same shape
# (`--mode concurrent --path ce --sizes-mib 1 --repeats 1`), what the probe did before paths.
# Two figures per machine: device_s, the devices' time on the transfers (per group, the
# slowest lane's CUDA-event time, summed: the simulated driver's modelled clock here, the real
# one's events on hardware), and the process's wall time, each as the mean of N runs.
# Usage: bench/probe_quick_cost.sh [BUILD_DIR] [RUNS] [MACHINE...]
#        (build/bench, 5, hgx-b200-8x rtx4090-8x-pcie)
set -euo pipefail
build=${1:-build/bench}
runs=${2:-5}
shift 2 || shift $#
machines=("$@")
[ ${#machines[@]} -gt 0 ] || machines=(hgx-b200-8x rtx4090-8x-pcie)
pg="$build/bin/peergate"
[ -x "$pg" ] || { echo "no $pg: build it first" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# measure NAME MACHINE ARGS...: mean device_s and wall seconds over $runs runs.
measure() {
    local name=$1 machine=$2
    shift 2
    local i start end
    for i in $(seq "$runs"); do
        start=$(date +%s%N)
        "$pg" --simulate "$machine" --json probe --no-cache "$@" >"$out/$name.$i.json" || true
        end=$(date +%s%N)
        echo $(((end - start) / 1000)) >"$out/$name.$i.wall_us"
    done
    python3 - "$out" "$name" "$runs" <<'PY'
import json, sys
out, name, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
docs = [json.load(open(f"{out}/{name}.{i}.json")) for i in range(1, runs + 1)]
walls = [int(open(f"{out}/{name}.{i}.wall_us").read()) / 1e6 for i in range(1, runs + 1)]
device = sum(d["device_s"] or 0.0 for d in docs) / runs
print(f"{device:.6f} {sum(walls) / runs:.4f} {docs[0]['result']} {len(docs[0]['cells'])}")
PY
}

for machine in "${machines[@]}"; do
    "$pg" --simulate "$machine" topo >/dev/null 2>&1 || true  # warm: the host root once
    read -r q_dev q_wall q_result q_cells < <(measure quick "$machine" --quick)
    read -r b_dev b_wall b_result b_cells < <(measure base "$machine" \
        --mode concurrent --path ce --sizes-mib 1 --repeats 1)
    python3 - "$machine" "$q_dev" "$q_wall" "$q_result" "$q_cells" \
        "$b_dev" "$b_wall" "$b_result" "$b_cells" <<'PY'
import sys
m, qd, qw, qr, qc, bd, bw, br, bc = sys.argv[1:]
qd, qw, bd, bw = float(qd), float(qw), float(bd), float(bw)
print(f"{m}: --quick {qc} cells ({qr}): device {qd * 1e3:.3f} ms, wall {qw * 1e3:.1f} ms; "
      f"copies alone {bc} cells ({br}): device {bd * 1e3:.3f} ms, wall {bw * 1e3:.1f} ms; "
      f"ratio device {qd / bd if bd else float('nan'):.2f}x, wall {qw / bw:.2f}x")
PY
done
