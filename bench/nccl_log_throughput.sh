#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Throughput and peak memory of `peergate nccl-log` on generated NCCL_DEBUG=INFO logs,
# against `grep -c ' via '` on the same file in the same run (the baseline: a reader
# that does the least work that still looks at every connection line).
#
#   bench/nccl_log_throughput.sh [SIZE_MB ...]      default: 100 1000
#   bench/nccl_log_throughput.sh --generate FILE SIZE_MB   only writes the log (kept)
#
# Env: PEERGATE (binary, default build/release/bin/peergate, built with the `release`
# preset), BENCH_DIR (default /tmp), REPEATS (default 3; the best run of each counts),
# THREADS (nccl-log --threads values, one row each; default "1 0": one pass, then one
# thread per CPU; 0 rows say how many CPUs that was), PEERGATE_BEFORE (a previous binary,
# measured on the same file in the same minutes, without --threads, which it may lack).
# The logs are written under BENCH_DIR and deleted on exit. Elapsed time counts waiting
# for a core on a loaded host, and extra threads only help where a core is free; CPU
# seconds add up every thread, so the CPU ratio never improves with threads.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"

# Writes SIZE_MB of log: a 16 MiB block of realistic lines (64 hosts x 8 GPUs, 32
# channels, every transport, init/ring/graph/setting noise) repeated to size. As in a real
# job, each host uses one P2P flavour and each GPU one NIC, so the job has ~65k distinct
# connections however long the log is.
generate() {
  python3 - "$1" "$2" <<'PY'
import random, sys
out, size_mb = sys.argv[1], int(sys.argv[2])
rng = random.Random(42)
hosts = [f"gpu-node-{i:03d}" for i in range(64)]
details = ["P2P/IPC/read", "P2P/CUMEM", "P2P/CUMEM/read", "P2P/direct pointer", "SHM/direct/direct"]
net = ["NET/IB/0/GDRDMA", "NET/IB/3(1)/GDRDMA", "NET/Socket/0", "NET/IBext_v8/2"]
lines = []
block_bytes = 0
while block_bytes < 16 << 20:
    h = rng.randrange(64); dev = rng.randrange(8); rank = h * 8 + dev
    prefix = f"{hosts[h]}:{10000 + rank}:{20000 + rank} [{dev}] NCCL INFO "
    ch = rng.randrange(32); r = rng.random()
    if r < 0.45:
        peer = h * 8 + (dev + 1) % 8
        lines.append(f"{prefix}Channel {ch:02d}/0 : {rank}[{dev}] -> {peer}[{(dev + 1) % 8}] via {details[h % len(details)]}\n")
    elif r < 0.65:
        peer = ((h + 1) % 64) * 8 + dev; d = rng.choice(["send", "receive"])
        lines.append(f"{prefix}Channel {ch:02d}/0 : {rank}[{dev}] -> {peer}[{dev}] [{d}] via {net[dev % len(net)]}\n")
    elif r < 0.70:
        lines.append(f"{prefix}CollNet {ch:02d}/0 : {rank} [send] via COLLNET/SHARP/{dev}/GDRDMA\n")
    elif r < 0.80:
        lines.append(f"{prefix}Channel {ch:02d}/32 :    " + "   ".join(str(i) for i in range(8)) + "\n")
    elif r < 0.85:
        lines.append(f"{prefix}comm 0x{rank:012x} rank {rank} nranks 512 cudaDev {dev} nvmlDev {dev} busId {0x18000 + dev * 0x10000:x} commId 0x5ae77eb5ea4ec1ee - Init COMPLETE\n")
    elif r < 0.88:
        lines.append(f"{prefix}Pattern 4, crossNic 0, nChannels 16, bw 40.000000/40.000000, type NVL/PIX, sameChannels 1\n")
    elif r < 0.90:
        lines.append(f"{prefix}NCCL_IB_GID_INDEX set by environment to 3.\n")
    else:
        lines.append(f"{prefix}Connected all rings, use ring PXN 0 GDR 1\n")
    block_bytes += len(lines[-1])
block = "".join(lines).encode()
target = size_mb << 20
with open(out, "wb") as f:
    written = 0
    while written < target:
        chunk = block[: target - written]
        f.write(chunk); written += len(chunk)
PY
}

if [[ "${1:-}" == "--generate" ]]; then
  [[ $# -eq 3 ]] || { echo "usage: $0 --generate FILE SIZE_MB" >&2; exit 2; }
  generate "$2" "$3"
  exit 0
fi

peergate="${PEERGATE:-$root/build/release/bin/peergate}"
bench_dir="${BENCH_DIR:-/tmp}"
repeats="${REPEATS:-3}"
read -r -a thread_counts <<< "${THREADS:-1 0}"
before="${PEERGATE_BEFORE:-}"
sizes=("$@")
[[ ${#sizes[@]} -eq 0 ]] && sizes=(100 1000)

[[ -x "$peergate" ]] || { echo "no peergate at $peergate (cmake --preset release && cmake --build build/release --target peergate)" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "/usr/bin/time is needed (package: time)" >&2; exit 2; }

need_mb=0
for s in "${sizes[@]}"; do (( s > need_mb )) && need_mb=$s; done
avail_mb=$(df -Pm "$bench_dir" | awk 'NR==2 {print $4}')
if (( avail_mb < need_mb * 2 )); then
  echo "only ${avail_mb} MB free in $bench_dir; need about $((need_mb * 2)) MB" >&2
  exit 2
fi

work="$(mktemp -d "$bench_dir/peergate-nccl-bench.XXXXXX")"
trap 'rm -rf "$work"' EXIT

# Best elapsed seconds over $repeats runs of "$@", with that run's CPU seconds (user +
# sys) and peak RSS (KiB). CPU seconds matter on a shared host, where elapsed time also
# counts waiting for a core.
measure() {
  local best="" cpu="" rss="" t u s m
  for _ in $(seq "$repeats"); do
    # Output goes to a file, not /dev/null: GNU grep notices /dev/null and stops at the
    # first match, which would make the baseline meaningless.
    /usr/bin/time -f "%e %U %S %M" -o "$work/time.txt" "$@" > "$work/out.txt" 2>/dev/null || true
    read -r t u s m < "$work/time.txt"
    if [[ -z "$best" ]] || awk -v a="$t" -v b="$best" 'BEGIN {exit !(a < b)}'; then
      best=$t; rss=$m; cpu=$(awk -v u="$u" -v s="$s" 'BEGIN {printf "%.2f", u + s}')
    fi
  done
  echo "$best $cpu $rss"
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", (b > 0 ? a / b : 0)}'; }

echo "peergate: $peergate"
echo "host: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); best of $repeats runs each; files page-cached"
printf '\n| size | lines | grep -c s (cpu) | binary, threads | nccl-log --json s (cpu) | ratio elapsed | ratio cpu | nccl-log MB/s | nccl-log peak RSS | grep peak RSS |\n'
printf '|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|\n'
row() {  # label, then the command
  local label=$1 p_s p_cpu p_rss mbps
  shift
  read -r p_s p_cpu p_rss < <(measure "$@")
  mbps=$(awk -v s="$size" -v p="$p_s" 'BEGIN {printf "%.0f", (p > 0 ? s / p : 0)}')
  printf '| %s MB | %s | %s (%s) | %s | %s (%s) | %sx | %sx | %s | %s MiB | %s MiB |\n' "$size" "$lines" "$g_s" "$g_cpu" \
    "$label" "$p_s" "$p_cpu" "$(ratio "$p_s" "$g_s")" "$(ratio "$p_cpu" "$g_cpu")" "$mbps" "$((p_rss / 1024))" "$((g_rss / 1024))"
}
for size in "${sizes[@]}"; do
  file="$work/nccl-${size}mb.log"
  generate "$file" "$size"
  cat "$file" > /dev/null   # warm the page cache for both readers alike
  lines=$(wc -l < "$file")
  read -r g_s g_cpu g_rss < <(measure grep -c ' via ' "$file")
  for t in "${thread_counts[@]}"; do
    label="this, $t"
    [[ "$t" == 0 ]] && label="this, 0 ($(nproc) CPUs)"
    row "$label" "$peergate" nccl-log "$file" --json --threads "$t"
  done
  [[ -n "$before" ]] && row "before, 1" "$before" nccl-log "$file" --json
  rm -f "$file"
done
