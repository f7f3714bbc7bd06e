#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The hostile inputs of issue 34 and every fault kind of the simulated drivers, each run once
# through the real binary: what peergate answers (its first line), its exit status, its wall
# time and its peak memory (GNU time's maximum RSS). Prints the Markdown table of
# docs/RELIABILITY.md.
#
#   bench/hostile_inputs.sh > /tmp/table.md
#
# Env: PEERGATE (default build/release/bin/peergate; any preset's binary works, a sanitizer
# build's memory is not the product's), WORK (default: a fresh directory under /tmp, removed
# on exit), NCCL_LOG_MB (default 200: the distinct-key nccl-log case), STDIN_LOG_MB (default
# 300: the piped kernel log). Each case runs under `timeout 120`; 124 in the exit column
# means it ran past that.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
pg=${PEERGATE:-$root/build/release/bin/peergate}
[ -x "$pg" ] || { echo "hostile_inputs: no $pg (cmake --preset release && cmake --build --preset release)" >&2; exit 2; }
command -v /usr/bin/time > /dev/null || { echo "hostile_inputs: GNU time is needed (apt-get install time)" >&2; exit 2; }
work=${WORK:-$(mktemp -d /tmp/peergate-hostile.XXXXXX)}
trap 'rm -rf "$work"' EXIT
export PEERGATE_CACHE_DIR=$work/cache
mkdir -p "$work/cache"
no_gpu=(--nvml-lib /nonexistent/libnvidia-ml.so.1 --cuda-lib /nonexistent/libcuda.so.1 --nvidia-smi /bin/false)

# row NAME -- ARGV...: one row. stdin is /dev/null unless STDIN_FROM names a command; SHOW is
# the pattern of the answer's line to quote.
row() {
  local name=$1
  shift 2
  local out="$work/out" status=0
  if [ -n "${STDIN_FROM:-}" ]; then
    bash -c "$STDIN_FROM" | /usr/bin/time -f "%e %M" -o "$work/time" timeout 120 "$@" > "$out" 2>&1 || status=$?
  else
    /usr/bin/time -f "%e %M" -o "$work/time" timeout 120 "$@" < /dev/null > "$out" 2>&1 || status=$?
  fi
  local first wall rss
  # The line that tells, by the case's SHOW pattern, else the first verdict-like one.
  first=$(grep -m1 -E "${SHOW:-^result:|^Verdict:|P2P (vetoed|allowed)|refus|unreadable|peergate:}" "$out" |
    cut -c1-110 | sed 's/|/\\|/g' || true)
  read -r wall rss < <(tail -1 "$work/time")
  printf '| %s | %s | %s | %s | %.0f |\n' "$name" "$status" "${first:-(no output)}" "$wall" "$((rss / 1024))"
}

machine() {  # NAME PYTHON-EXPR: a copy of bridged-a100-4x.json changed by the expression on d
  python3 - "$root/machines/bridged-a100-4x.json" "$work/$1.json" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"))
PY
  echo "$work/$1.json"
}

echo "| case | exit | first line of the answer | wall s | peak MiB |"
echo "|---|---|---|---|---|"
mkdir -p "$work/fifo-root/proc" "$work/zero-root/proc" "$work/big-root/proc"
mkfifo "$work/fifo-root/proc/cmdline"
row "FIFO as host-root proc/cmdline: gate" -- "$pg" --host-root "$work/fifo-root" "${no_gpu[@]}" gate --gpus 0,1
mkfifo "$work/kern.fifo"
SHOW="^Kernel log:" row "FIFO as --kernel-log: doctor" -- "$pg" --simulate bridged-a100-4x doctor --kernel-log "$work/kern.fifo"
mkfifo "$work/out.fifo"
row "FIFO as export --output" -- "$pg" --simulate bridged-a100-4x export prometheus --output "$work/out.fifo"
row "topo --from /dev/zero" -- "$pg" topo --from /dev/zero
ln -s /dev/zero "$work/zero-root/proc/cpuinfo"
SHOW="^Verdict:" row "host-root cpuinfo -> /dev/zero: doctor" -- "$pg" --host-root "$work/zero-root" "${no_gpu[@]}" doctor
truncate -s 8G "$work/big-root/proc/cmdline"
row "8 GB sparse proc/cmdline: gate" -- "$pg" --host-root "$work/big-root" "${no_gpu[@]}" gate --gpus 0,1
python3 - "$work/distinct.log" "${NCCL_LOG_MB:-200}" <<'PY'
import sys
out, mb = open(sys.argv[1], "w"), int(sys.argv[2])
n, size = 0, 0
while size < mb << 20:
    line = ("host%d:%d:%d [%d] NCCL INFO Channel %02d/0 : %d[%x] -> %d[%x] via P2P/IPC/read gdr%d\n"
            % (n, n, n, n % 8, n % 32, n, n, n + 1, n + 1, n))
    out.write(line); size += len(line); n += 1
PY
SHOW="nccl_log_capped" row "nccl-log: ${NCCL_LOG_MB:-200} MB of distinct hosts and ranks" -- "$pg" nccl-log "$work/distinct.log"
# One host, every rank and connection new, and a rank line every third line: the connection
# and rank tables fill (the hosts' cap does not stop them), and --json writes every kept one.
python3 - "$work/distinct-ranks.log" "${NCCL_LOG_MB:-200}" <<'PY'
import sys
out, mb = open(sys.argv[1], "w"), int(sys.argv[2])
n, size = 0, 0
while size < mb << 20:
    line = ("host:1:2 [0] NCCL INFO Channel %02d/0 : %d[%x] -> %d[%x] via P2P/IPC/read\n"
            % (n % 32, n, n % 8, n + 1, (n + 1) % 8))
    if n % 3 == 0:
        line += ("host:1:2 [0] NCCL INFO comm 0x%x rank %d nranks 9999999 cudaDev 0 busId %x "
                 "commId 0x%x - Init START\n" % (n, n, n, n))
    out.write(line); size += len(line); n += 1
PY
SHOW='"message": "the input holds' row "nccl-log --json: ${NCCL_LOG_MB:-200} MB of distinct ranks on one host" -- "$pg" nccl-log --json "$work/distinct-ranks.log"
# Every GDR line, setting, communicator and dump new, each printing thread its own dump:
# the choice, GDR and dump tables fill, and the JSON has 10^5 setting names.
python3 - "$work/distinct-other.log" "${NCCL_LOG_MB:-200}" <<'PY'
import sys
out, mb = open(sys.argv[1], "w"), int(sys.argv[2])
n, size = 0, 0
while size < mb << 20:
    k = n % 4
    if k == 0:
        line = ("h%d:1:2 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA %d 'mlx5_%d' "
                "(no module)\n" % (n, n, n))
    elif k == 1:
        line = ("host:1:%d [0] NCCL INFO comm 0x%x rank %d nranks 9 cudaDev 0 busId %x commId "
                "0x%x - Init COMPLETE\n" % (n, n, n % 64, n, n % 1000))
    elif k == 2:
        line = "host:1:%d [0] NCCL INFO NCCL_X%d set by environment to %d\n" % (n, n, n)
    else:
        line = ("host:1:%d [0] NCCL INFO === System : maxBw 48.0 totalBw 370.8 ===\n"
                "host:1:%d [0] NCCL INFO GPU/0-%x (0)\n" % (n, n, n))
    out.write(line); size += len(line); n += 1
PY
SHOW='"message": "the input holds' row "nccl-log --json: ${NCCL_LOG_MB:-200} MB of distinct GDR lines, settings and dumps" -- "$pg" nccl-log --json "$work/distinct-other.log"
SHOW="^Kernel log:" STDIN_FROM="yes '[   12.345678] NVRM: a kernel line' | head -c $((${STDIN_LOG_MB:-300} << 20))" \
  row "doctor --kernel-log - with ${STDIN_LOG_MB:-300} MB" -- "$pg" --simulate bridged-a100-4x doctor --kernel-log -
many=$(machine many-gpus "g=d['gpus'][0]; d['gpus']=[dict(g, index=i, pci_bus_id='%08X:%02X:00.0'%(i//256,i%256), uuid='GPU-%d'%i) for i in range(10000)]; d['matrix']=[]")
row "machine file with 10,000 GPUs: topo" -- "$pg" --simulate "$many" topo
wide=$(machine wide-affinity "d['gpus'][0]['cpu_affinity']='0-100000000'")
row "cpu_affinity 0-100000000: place" -- "$pg" --simulate "$wide" place --size 2
dup=$(machine duplicate-bus "d['gpus'][2]['pci_bus_id']=d['gpus'][1]['pci_bus_id']")
row "two GPUs with one bus id: gate --gpus 0,2" -- "$pg" --simulate "$dup" gate --gpus 0,2
dupu=$(machine duplicate-uuid "d['gpus'][2]['uuid']=d['gpus'][1]['uuid']")
row "two GPUs with one UUID: gate --gpus 0,1" -- "$pg" --simulate "$dupu" gate --gpus 0,1
nl=$(machine newline-name "d['gpus'][0]['name']='NVIDIA A100\\nNodeName=evil File=/dev/sda'")
SHOW="^NodeName=" row "newline in a GPU name: export gres" -- "$pg" --simulate "$nl" export gres
mkdir -p "$work/topo-dir.xml"
SHOW="^set NCCL_P2P" NCCL_TOPO_FILE="$work/topo-dir.xml" row "unreadable NCCL_TOPO_FILE, PCIe pair: gate --for nccl" -- \
  "$pg" --simulate pcie-rtx6000ada-2x-iommu gate --gpus 0,1 --for nccl
tiny=$(machine tiny-fault "d['faults']=[{'layer':'copy','effect':'drop','fraction':1e-9}]")
row "copy fault with fraction 1e-9: probe" -- "$pg" --simulate "$tiny" probe
row "export --also into a missing directory" -- "$pg" --simulate bridged-a100-4x export prometheus \
  --output "$work/a.prom" --also "nfd=$work/missing/b"
for fixture in "$root"/tests/fixtures/machines/probe-*.json; do
  name=$(basename "$fixture" .json)
  row "fault: $name: probe --mode all" -- "$pg" --simulate "$fixture" probe --mode all
done
