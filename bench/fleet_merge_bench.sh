#!/bin/bash
# `peergate fleet merge` over a cluster's worth of records: one simulated 8x B200 node's record
# (in parts, as srun would carry it) copied under N node names, one node changed so that the
# judge has an outlier to find, against the baseline `peergate --version` in the same run.
# Usage: bench/fleet_merge_bench.sh [BUILD_DIR] [NODES] [RUNS]   (default build/bench 1000 5)
set -euo pipefail
build=${1:-build/bench}
nodes=${2:-1000}
runs=${3:-5}
pg="$build/bin/peergate"
[ -x "$pg" ] || { echo "no $pg: build it first" >&2; exit 2; }
dir=$(mktemp -d /tmp/peergate-fleet-bench.XXXXXX)
trap 'rm -rf "$dir"' EXIT
SLURMD_NODENAME=NODE "$pg" --simulate hgx-b200-8x fleet node --one-line > "$dir/one.json"
SLURMD_NODENAME=NODE "$pg" --simulate dgx1-v100 fleet node --one-line > "$dir/odd.json"
for ((i = 1; i < nodes; i++)); do sed "s/\"node\":\"NODE\"/\"node\":\"gpu$i\"/" "$dir/one.json"; done > "$dir/all.jsonl"
sed 's/"node":"NODE"/"node":"gpu0"/' "$dir/odd.json" >> "$dir/all.jsonl"
measure() {  # mean wall ms of the command given
    local TIMEFORMAT='%R' t
    t=$( { time (for ((i = 0; i < runs; i++)); do "$@" >/dev/null 2>&1 || true; done) ; } 2>&1 )
    awk -v n="$runs" -v t="$t" 'BEGIN { printf "%.1f", t * 1000 / n }'
}
version=$(measure "$pg" --version)
merge=$(measure "$pg" fleet merge "$dir/all.jsonl")
echo "nodes: $nodes, $(wc -c < "$dir/all.jsonl") bytes of records, runs: $runs, load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "peergate --version (baseline): $version ms"
echo "peergate fleet merge ($nodes nodes): $merge ms ($(awk -v a="$merge" -v b="$version" 'BEGIN { printf "%.1f", a / b }')x the baseline)"
"$pg" fleet merge "$dir/all.jsonl" | tail -4
