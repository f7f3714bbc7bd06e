#!/usr/bin/env bash
# What only a real GPU can show: peergate against the real NVML, CUDA driver and nvidia-smi,
# and the probe's PTX kernels run by the real driver (the one-device loader tests). Run on a
# machine with an NVIDIA driver; results are in docs/PERFORMANCE.md ("On a real H200").
#
# Usage: scripts/device-check.sh PREFIX OUT
#   PREFIX is a build or install tree: bin/peergate, bin/peergate_loader_cuda_tests,
#   lib/libpeergate.so, lib/peergate/ and libexec/peergate/ (the simulated parts, for the
#   replay), share/peergate/machines/, and any shared library they need in lib/ (libfmt);
#   OUT receives device-check.tar.gz (every command's stdout, stderr and status) and the
#   gathered machine file. A summary goes to stdout.
set -u
prefix=$(cd "${1:?usage: device-check.sh PREFIX OUT}" && pwd)
out=${2:?usage: device-check.sh PREFIX OUT}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
export LD_LIBRARY_PATH="$prefix/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export NO_COLOR=1
pg="$prefix/bin/peergate"

# step NAME CMD...: runs CMD with a 120 s limit, keeps its output, prints status and time.
step() {
  local name=$1
  shift
  local start end rc
  start=$(date +%s%N)
  timeout 120 "$@" >"$work/$name.out" 2>"$work/$name.err"
  rc=$?
  end=$(date +%s%N)
  echo "$rc" >"$work/$name.rc"
  printf '== %-22s rc=%-3s %6d ms  %s\n' "$name" "$rc" $(((end - start) / 1000000)) "$*" |
    tee -a "$work/steps.txt"
}

# The host, as peergate's readers see it.
step uname uname -a
step cmdline cat /proc/cmdline
step iommu ls -la /sys/class/iommu
step smi nvidia-smi
step smi-q nvidia-smi -q
step smi-topo-m nvidia-smi topo -m
step smi-topo-p2p nvidia-smi topo -p2p r
step smi-nvlink nvidia-smi nvlink -s
step smi-query nvidia-smi --query-gpu=index,pci.bus_id,name,driver_version,memory.total --format=csv
step dmesg sh -c 'dmesg 2>&1 | grep -iE "iommu|dmar|amd-vi|nvrm|xid" | tail -50'

# peergate on the real libraries.
step version "$pg" --version
step doctor "$pg" doctor
step doctor-v "$pg" -v doctor
step doctor-json "$pg" --json doctor
step doctor-probe "$pg" --json doctor --probe --html "$work/doctor.html"
step lspci-acs sh -c 'lspci -vvv 2>&1 | grep -E "^[0-9a-f]|ACSCtl" | grep -B1 ACSCtl | head -40'
step topo "$pg" topo
step topo-cross "$pg" topo --crosscheck
step topo-smi "$pg" topo --source smi
step topo-json "$pg" --json topo
step gate "$pg" gate --for all
step gate-json "$pg" --json gate --for all
step gate-shell "$pg" gate --format shell
step probe "$pg" probe
# The pre-launch check on every path (docs/probe.md "Quick mode"): with one GPU it cannot run
# (exit 2, saying why); with two or more, its device_s is the real events' figure.
step probe-quick "$pg" --json probe --quick --no-cache
step bench "$pg" bench --latency
step bench-json "$pg" --json bench
step doctor-bandwidth "$pg" --json doctor --bandwidth "$work/bench-json.out"
step bench-256 "$pg" bench --size-mib 256
# watch around known traffic: bench moves GBs between GPUs (here one GPU: device-local and
# host copies, so PCIe must move and NVLink stay idle); the JSON keeps the counters' reading.
step watch-bench "$pg" watch --no-gate --interval 200 --output "$work/watch-bench.json" -- "$pg" bench --size-mib 256
step watch-bench-json cat "$work/watch-bench.json"
step watch-attach "$pg" --json watch --attach --seconds 2 --interval 100
step smi-nvlink-gt sh -c 'nvidia-smi nvlink -gt d 2>&1 | head -40'
step place "$pg" place --size 1
step exec "$pg" exec --for nccl -- sh -c 'env | grep -E "^(CUDA|NCCL|GGML)" | sort'
step exec-bind "$pg" exec --bind-cpus -- grep Cpus_allowed_list /proc/self/status
step doctor-nvlinks sh -c "'$pg' --json doctor | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"layers\"][\"peer_access\"][\"nvlinks\"])'"
step gather "$pg" gather --output "$work/h200-machine.json"
step replay-doctor "$pg" --simulate "$work/h200-machine.json" doctor
step replay-topo "$pg" --simulate "$work/h200-machine.json" --json topo
step place-json "$pg" --json place --size 1
step cuda-visible "$pg" cuda-visible
step export-prom "$pg" export prometheus --bandwidth "$work/bench-json.out" --output "$work/peergate.prom"
step promtool sh -c "command -v promtool >/dev/null && promtool check metrics < '$work/peergate.prom' || cat '$work/peergate.prom'"
step export-nfd "$pg" export nfd --expiry-hours 2
step export-gres "$pg" export gres
step export-dot "$pg" export dot
step minors sh -c 'grep -H "Device Minor" /proc/driver/nvidia/gpus/*/information'
step fleet-node "$pg" fleet node --one-line
step fleet-health "$pg" -v fleet health
step capi python3 "$here/../tests/scripts/gate_ctypes_example.py" "$prefix/lib/libpeergate.so" 0

# The decision's cost in front of a launch: ten gates in a row, wall time each.
for i in 1 2 3 4 5 6 7 8 9 10; do step "gate-time-$i" "$pg" -q gate; done

# The PTX kernels and the copy engine on the real driver (256 MiB + 12 bytes per buffer):
# fill and verify, and the peer paths' kernels on one device (SM store and load through the
# device's own mapping, the flag handshake between two streams, a waiter without budget).
step selftest env PEERGATE_SELFTEST_CUDA_LIB=libcuda.so.1 PEERGATE_SELFTEST_MIB=256 \
  "$prefix/bin/peergate_loader_cuda_tests" --gtest_filter='Sites/*'
step selftest-small env PEERGATE_SELFTEST_CUDA_LIB=libcuda.so.1 PEERGATE_SELFTEST_MIB=1 \
  "$prefix/bin/peergate_loader_cuda_tests" --gtest_filter='Sites/*Handshake*:Sites/*Waiter*:Sites/*SmStore*'
# NVIDIA's ptxas on the same PTX, where that machine has the toolkit (the test skips without).
step ptxas "$prefix/bin/peergate_loader_cuda_tests" --gtest_filter='*PtxAssembles*'

# Summary: the lines a reader wants first.
for name in doctor doctor-probe lspci-acs doctor-bandwidth topo gather replay-doctor gate probe probe-quick bench place exec exec-bind doctor-nvlinks capi cuda-visible export-prom promtool export-nfd export-gres minors fleet-health selftest selftest-small ptxas; do
  echo "---- $name (rc $(cat "$work/$name.rc"))"
  head -c 1500 "$work/$name.out"
  head -c 500 "$work/$name.err"
done
echo "---- steps"
cat "$work/steps.txt"

mkdir -p "$out"
cp "$work/h200-machine.json" "$out/" 2>/dev/null
tar -C "$work" -czf "$out/device-check.tar.gz" .
rm -rf "$work"
