#!/bin/sh
# One NVML discovery against one nvidia-smi discovery on the simulated 8-GPU NVSwitch
# machine, both from the same run of bench/nvml_discovery_bench, as a ratio; plus the
# number of NVML calls of one discovery; and what the doctor's record (links with their error
# counters, P2P status for every caps index) adds in the same session.
# Usage: bench/nvml_discovery_ratio.sh BUILD_DIR (BUILD_DIR holds bench/nvml_discovery_bench
# and lib/peergate/libpeergate_sim_nvml.so).
set -eu
build=${1:?usage: $0 BUILD_DIR}
src=$(cd "$(dirname "$0")/.." && pwd)
bench=$(find "$build" -name "*nvml_discovery_bench" -type f -perm -u+x | head -n 1)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

machine="$src/tests/fixtures/machines/nvml-nvswitch-8x.json"
# The topo -m text of that machine, as the stand-in nvidia-smi prints it. Prefer the
# simulated nvidia-smi when the build has one.
python3 - "$machine" > "$work/topo_m.txt" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
n = len(m["gpus"])
print("\t" + "\t".join("GPU%d" % q for q in range(n)) + "\tCPU Affinity\tNUMA Affinity")
for p, g in enumerate(m["gpus"]):
    cells = [" X " if c == "X" else c for c in m["matrix"][p]]
    print("GPU%d\t" % p + "\t".join(cells) + "\t%s\t%s" % (g["cpu_affinity"], g["numa_node"]))
print("\nLegend:\n\n  X    = Self")
PY
smi="$src/tests/scripts/fake-nvidia-smi-topo.sh"
if [ -x "$build/libexec/peergate/peergate-sim-nvidia-smi" ]; then
    smi="$build/libexec/peergate/peergate-sim-nvidia-smi"
fi

PEERGATE_SIM_NVML="$build/lib/peergate/libpeergate_sim_nvml.so" \
PEERGATE_SIM_MACHINE="$machine" PEERGATE_BENCH_SMI="$smi" \
PEERGATE_FAKE_TOPO_M="$work/topo_m.txt" \
    "$bench" --benchmark_format=json --benchmark_repetitions=5 \
             --benchmark_report_aggregates_only=true > "$work/out.json"

python3 - "$work/out.json" "$smi" <<'PY'
import json, sys
runs = {b["run_name"]: b for b in json.load(open(sys.argv[1]))["benchmarks"] if b.get("aggregate_name") == "median"}
nvml = runs["BM_NvmlDiscovery"]; watch = runs["BM_NvmlDiscoveryWithWatchdog"]; smi = runs["BM_SmiDiscovery"]
print("nvidia-smi stand-in: %s" % sys.argv[2])
print("NVML discovery (median)               %8.3f ms  (%d NVML calls)" % (nvml["real_time"], nvml["nvml_calls"]))
print("NVML discovery behind the watchdog    %8.3f ms" % watch["real_time"])
print("nvidia-smi discovery (median)         %8.3f ms" % smi["real_time"])
print("ratio nvidia-smi / NVML               %8.1fx" % (smi["real_time"] / nvml["real_time"]))
print("ratio nvidia-smi / NVML (watchdog)    %8.1fx" % (smi["real_time"] / watch["real_time"]))
record = runs["BM_NvmlDiscoveryWithRecord"]
print("NVML discovery + the doctor's record  %8.3f ms  (%d NVML calls)" % (record["real_time"], record["nvml_calls"]))
print("ratio record / discovery              %8.1fx" % (record["real_time"] / nvml["real_time"]))
PY
