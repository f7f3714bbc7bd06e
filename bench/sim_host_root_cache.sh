#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Cost of --simulate's host-root materialisation: a first run on a machine (cold: the tree
# is written) against a rerun (warm: the tree is reused), same script, same binary.
# Usage: bench/sim_host_root_cache.sh [build/dev/bin/peergate] [machine] [runs]
set -euo pipefail
peergate=${1:-build/dev/bin/peergate}
machine=${2:-hgx-b200-8x}
runs=${3:-10}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cold=0
warm=0
for _ in $(seq "$runs"); do
    dir=$(mktemp -d -p "$scratch")
    start=$(date +%s%N)
    TMPDIR=$dir "$peergate" --simulate "$machine" topo --source smi >/dev/null
    middle=$(date +%s%N)
    TMPDIR=$dir "$peergate" --simulate "$machine" topo --source smi >/dev/null
    end=$(date +%s%N)
    cold=$((cold + middle - start))
    warm=$((warm + end - middle))
done
echo "machine=$machine runs=$runs cold_mean_ms=$((cold / runs / 1000000)) warm_mean_ms=$((warm / runs / 1000000))" \
     "cold/warm=$(awk -v c="$cold" -v w="$warm" 'BEGIN { printf "%.2f", c / w }')"
