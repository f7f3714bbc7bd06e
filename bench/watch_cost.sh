#!/bin/bash
# What `peergate watch` costs (docs/watch.md "Sampling"), on the simulated hgx-b200-8x (8 GPUs,
# 18 NVLinks each: one field-values call of 38 values and two PCIe calls per GPU a round):
#  1. The sampler's CPU: `watch --attach --seconds S` reports the worker thread's own CPU time
#     (CLOCK_THREAD_CPUTIME_ID) as sampling.cpu_seconds; the ratio to S is its share of one
#     CPU, at the default interval (1000 ms) and at 100 ms.
#  2. The delay before CMD starts: sampling.start_delay_s of `watch -- true`, against the
#     gate's own time to decide, measured in the same run (`gate --gpus all`, wall time).
# The simulated driver answers the PCIe calls at once; a real one waits 20 ms in each, asleep,
# which costs no CPU. Usage: bench/watch_cost.sh [BUILD_DIR] [SECONDS]  (build/bench, 10)
set -euo pipefail
build=${1:-build/bench}
seconds=${2:-10}
pg="$build/bin/peergate"
[ -x "$pg" ] || { echo "no $pg: build it first" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

share() {  # interval_ms: the sampler's CPU share of one CPU, in percent
    "$pg" --simulate hgx-b200-8x --json watch --attach --seconds "$seconds" --interval "$1" \
        >"$out/attach.json" || true
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); s=d["sampling"]
print("%.3f %% of one CPU (%.4f s CPU over %.1f s, %d rounds)" % (100*s["cpu_seconds"]/d["seconds"], s["cpu_seconds"], d["seconds"], d["rounds"]))' "$out/attach.json"
}

printf 'sampler, interval 1000 ms: %s\n' "$(share 1000)"
printf 'sampler, interval  100 ms: %s\n' "$(share 100)"

"$pg" --simulate hgx-b200-8x gate >/dev/null || true  # warm: the host root once
gate_s=0
delay_s=0
runs=5
for ((i = 0; i < runs; i++)); do
    start=$(date +%s.%N)
    "$pg" --simulate hgx-b200-8x gate --gpus all >/dev/null 2>&1 || true
    end=$(date +%s.%N)
    gate_s=$(python3 -c "print($gate_s + $end - $start)")
    "$pg" --simulate hgx-b200-8x watch --gpus all --output "$out/w.json" -- true 2>/dev/null
    delay_s=$(python3 -c "import json; print($delay_s + json.load(open('$out/w.json'))['sampling']['start_delay_s'])")
done
python3 -c "g=$gate_s/$runs; d=$delay_s/$runs; print('start delay %.1f ms against the gate process %.1f ms: %.2fx' % (d*1000, g*1000, d/g))"
