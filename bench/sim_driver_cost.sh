#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# What the simulated CUDA driver costs the commands that move data: wall time, CPU time and
# peak memory of probe, doctor --probe and bench on a simulated machine, each beside the
# same machine's plain `doctor` (no data moved) run by this script as the baseline.
# Usage: bench/sim_driver_cost.sh [build/bench/bin/peergate] [machine]
set -euo pipefail
peergate=${1:-build/bench/bin/peergate}
machine=${2:-hgx-b200-8x}
report=$(mktemp)
trap 'rm -f "$report"' EXIT
timed() {
    /usr/bin/time -o "$report" -f '%e %U %S %M' "$peergate" --simulate "$machine" "$@" \
        >/dev/null 2>&1 || true
}
measure() {
    timed "$@"
    read -r wall user sys peak <"$report"
    awk -v w="$wall" -v u="$user" -v s="$sys" -v p="$peak" -v b="${baseline:-$wall}" \
        -v what="$*" 'BEGIN { printf "%-40s wall %7.2f s  cpu %7.2f s  peak %8.1f MiB  wall/baseline %8.1fx\n",
                              what, w, u + s, p / 1024, w / (b > 0.005 ? b : 0.005) }'
}
timed doctor
baseline=$(cut -d' ' -f1 "$report")
echo "machine=$machine baseline (doctor, no data moved): ${baseline} s"
measure probe
measure probe --mode all
measure doctor --probe
measure bench
measure bench --latency
