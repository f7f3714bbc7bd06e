#!/bin/bash
# Checks peergate's Slurm outputs against real Slurm daemons, on one host without GPUs:
#  1. `export gres` for the simulated DGX-1 cube mesh, parsed by `slurmd -G`;
#  2. `fleet run` through a real srun on a private cluster of three slurmd (Debian's build
#     runs several slurmd on one host; docs/ecosystem.md §3.4), simulated nodes;
#  3. `fleet run` with one node simulating a bad machine of each kind (silent data loss, an
#     NVLink down, an NVSwitch fabric not ready), the others a healthy twin: it must exit 1
#     and name exactly that node, with the finding. Each node's machine comes from the
#     cluster's TaskProlog, the way a real node's task sees its own hardware;
#  4. fleet health --drain by hand: a failing node drains itself with a "peergate:" reason,
#     resumes when healthy again, and a node an admin drained stays drained;
#  5. fleet health --drain as the cluster's real HealthCheckProgram (packaging/
#     slurm-health-check), run by slurmd with only PWD and SLURMD_NODENAME while slurm.conf is
#     in this private directory: exactly the bad node ends drained with a "peergate:" reason.
# Needs root and the Debian packages slurm-wlm and munge (scripts/install-deps.sh installs them
# where it can); exits 77, skipped, with the reason when either is missing. Leaves nothing
# running: every daemon is stopped by its PID. ctest runs it as slurm.real_cluster.
# Usage: scripts/slurm-check.sh [BUILD_DIR]   (default build/release)
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-build/release}" && pwd)
pg="$build/bin/peergate"
[ -x "$pg" ] || { echo "slurm-check: no $pg: build it first" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "slurm-check: skipped: needs root (slurmd, munged and the drains run as root)"; exit 77; }
for tool in /usr/sbin/slurmd /usr/sbin/slurmctld /usr/sbin/munged /usr/bin/srun /usr/bin/sinfo /usr/bin/scontrol python3; do
    command -v "$tool" > /dev/null || { echo "slurm-check: skipped: $tool missing (apt-get install slurm-wlm munge)"; exit 77; }
done
started=$(date +%s)
T=$(mktemp -d /tmp/peergate-slurm.XXXXXX)
H=$(hostname -s)
fail() { echo "slurm-check: $*" >&2; exit 1; }
# Stops the daemons by the PIDs they wrote, and waits until they are gone.
stop_pids() {
    local f pid
    for f in "$@"; do
        [ -s "$f" ] || continue
        pid=$(cat "$f")
        kill "$pid" 2>/dev/null || continue
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
        kill -0 "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null
        rm -f "$f"
    done
    return 0
}
stop() { stop_pids "$T"/slurmd-*.pid "$T/slurmctld.pid" "$T/munge/munged.pid"; }
trap stop EXIT
# Four free ports, so that two checks on one host (or a system Slurm) do not clash.
read -r ctld_port p1 p2 p3 < <(python3 -c '
import socket
s = [socket.socket() for _ in range(4)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')
mkdir -p "$T"/{munge,state,log,dev,spool/n1,spool/n2,spool/n3,cache/n1,cache/n2,cache/n3,bin,libexec/peergate}
chmod 700 "$T/munge"
dd if=/dev/urandom of="$T/munge/munge.key" bs=1 count=1024 status=none
chmod 400 "$T/munge/munge.key"
/usr/sbin/munged --force -S "$T/munge/munge.sock" --key-file="$T/munge/munge.key" \
    --log-file="$T/munge/munged.log" --pid-file="$T/munge/munged.pid" --seed-file="$T/munge/munged.seed"
for i in 0 1 2 3 4 5 6 7; do mknod "$T/dev/nvidia$i" c 195 "$i"; done

# Each node's machine: "NODE MACHINE" lines in $T/machines, "*" for the other nodes, read by
# the TaskProlog (for fleet run's tasks) and the HealthCheckProgram (for the health check).
cat > "$T/machine-of-node" <<SH
# Sourced: sets \$machine for \$SLURMD_NODENAME from $T/machines (shell builtins only).
machine=; other=
while read -r node m; do
    case \$node in "\$SLURMD_NODENAME") machine=\$m ;; '*') other=\$m ;; esac
done < "$T/machines"
machine=\${machine:-\$other}
SH
cat > "$T/task-prolog" <<SH
#!/bin/sh
# The cluster's TaskProlog: slurmstepd puts each "export" line into the task's environment.
. "$T/machine-of-node"
echo "export PEERGATE_SIMULATE=\$machine"
echo "export PEERGATE_CACHE_DIR=$T/cache/\$SLURMD_NODENAME"
SH
# The HealthCheckProgram: no SLURM_CONF and no PATH here, as Slurm runs it; the packaged
# wrapper (installed below as it is in libexec/peergate/) must find slurm.conf itself.
cat > "$T/health-check" <<SH
#!/bin/sh
. "$T/machine-of-node"
export PEERGATE_SIMULATE=\$machine PEERGATE_CACHE_DIR=$T/cache/\$SLURMD_NODENAME
exec "$T/libexec/peergate/slurm-health-check"
SH
chmod +x "$T/task-prolog" "$T/health-check"
cp "$src/packaging/slurm-health-check" "$T/libexec/peergate/"
ln -s "$pg" "$T/bin/peergate"
echo '* hgx-b200-8x' > "$T/machines"

# 1. The exported lines, with File= pointed at the device nodes made above and Cores= taken
#    out: slurmd checks Cores= against this host's own CPUs (two here, forty on a DGX-1).
#    One export per node: export gres writes a hostlist such as n[1-3] as n_1-3_.
for n in n1 n2 n3; do
    "$pg" --simulate dgx1-v100 export gres --node-name "$n" --gres-type v100
done | sed -e "s|File=/dev/|File=$T/dev/|" -e "s| Cores=[0-9,-]*||" > "$T/gres.conf"
cat > "$T/slurm.conf" <<CONF
ClusterName=pgcheck
SlurmctldHost=$H
SlurmctldPort=$ctld_port
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$T/munge/munge.sock
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
TaskProlog=$T/task-prolog
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool/%n
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd-%n.pid
SlurmctldLogFile=$T/log/slurmctld.log
SlurmdLogFile=$T/log/slurmd-%n.log
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
GresTypes=gpu
NodeName=n[1-3] NodeHostname=$H NodeAddr=127.0.0.1 Port=[$p1,$p2,$p3] CPUs=2 Gres=gpu:v100:8 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$T/slurm.conf"
unset PEERGATE_SIMULATE
echo "== slurmd -G on the exported gres.conf"
/usr/sbin/slurmd -f "$SLURM_CONF" -N n1 -G 2>&1 | grep -E "Gres Name=gpu|error" | tee "$T/gres-parsed.txt"
[ "$(grep -c 'Links=' "$T/gres-parsed.txt")" = 8 ] || fail "slurmd did not list 8 GPUs with Links"

start_slurmd() {
    local n
    for n in n1 n2 n3; do /usr/sbin/slurmd -f "$SLURM_CONF" -N "$n"; done
    for _ in $(seq 60); do [ "$(sinfo -h -t idle -o %D 2>/dev/null)" = 3 ] && return; sleep 0.5; done
    sinfo -N; fail "the three slurmd did not come up idle"
}
echo "== three slurmd"
/usr/sbin/slurmctld -f "$SLURM_CONF"
start_slurmd
sinfo -N -o '%N %T %G'

echo "== fleet run, three like nodes"
"$pg" fleet run -N 3 --timeout 120 --save "$T/all.jsonl" || fail "three like nodes: fleet run exited $?"

# fleet run with NODE simulating BAD and the others GOOD must exit 1 and name exactly NODE,
# with CODE among its errors (peergate.fleet/v1, docs/fleet.md).
bad_node_run() {
    local node=$1 bad=$2 good=$3 code=$4 status=0
    shift 4
    echo "== fleet run $*, $node simulating $(basename "$bad" .json)"
    printf '%s %s\n* %s\n' "$node" "$bad" "$good" > "$T/machines"
    "$pg" --json fleet run -N 3 --timeout 120 "$@" > "$T/run-$code.json" || status=$?
    [ "$status" = 1 ] || fail "$node as $bad: fleet run exited $status, not 1"
    python3 - "$T/run-$code.json" "$node" "$code" <<'PY' || fail "$node as $bad: see above"
import json, sys
doc, node, code = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3]
assert doc["schema"] == "peergate.fleet/v1" and doc["verdict"] == "problems", doc["verdict"]
assert len(doc["nodes"]) == 3, f"{len(doc['nodes'])} nodes answered"
named = {n for f in doc["findings"] for n in f["nodes"]}
assert named == {node}, f"named {sorted(named)}, not only {node}: {doc['findings']}"
mine = [f for f in doc["findings"] if f["code"] == "node_problems" and code in f["message"]]
assert mine, f"no node_problems finding with {code}: {doc['findings']}"
print("  ", mine[0]["message"])
PY
}
F="$src/tests/fixtures/machines"
bad_node_run n3 "$F/probe-drop-always-2x.json" "$F/probe-intact-2x.json" probe_data_lost --probe
bad_node_run n1 "$F/nvlink-down-8x.json" hgx-b200-8x nvlink_down
bad_node_run n2 "$F/fabric-in-progress-8x.json" hgx-b200-8x nvswitch_fabric_not_ready
echo '* hgx-b200-8x' > "$T/machines"

echo "== fleet health --drain, by hand"
state() { sinfo -h -n "$1" -o '%T'; }
SLURMD_NODENAME=n2 "$pg" --simulate pcie-rtx6000ada-2x-iommu fleet health --drain || echo "rc=$?"
scontrol show node n2 | tee "$T/n2-drained.txt" | grep -E "State=|Reason="
grep -q "Reason=peergate: " "$T/n2-drained.txt" || fail "n2 was not drained by peergate"
SLURMD_NODENAME=n2 "$pg" --simulate hgx-b200-8x fleet health --drain -v
sleep 1
echo "n2: $(state n2)"
case $(state n2) in *drain*) fail "n2 was not resumed" ;; esac
scontrol update NodeName=n1 State=DRAIN Reason="admin: maintenance"
SLURMD_NODENAME=n1 "$pg" --simulate hgx-b200-8x fleet health --drain -v
echo "n1: $(state n1)"
case $(state n1) in *drain*) ;; *) fail "n1, drained by an admin, was resumed" ;; esac
scontrol show node n1 > "$T/n1-admin-drained.txt"
scontrol update NodeName=n1 State=RESUME

# slurmd runs the HealthCheckProgram when it starts, before it registers, then every
# HealthCheckInterval (docs/ecosystem.md §3.2): the slurmd are restarted with one.
echo "== fleet health --drain as the HealthCheckProgram, n2 simulating fabric-in-progress-8x"
printf 'n2 %s\n* hgx-b200-8x\n' "$F/fabric-in-progress-8x.json" > "$T/machines"
stop_pids "$T"/slurmd-*.pid
printf 'HealthCheckProgram=%s\nHealthCheckInterval=15\n' "$T/health-check" >> "$SLURM_CONF"
scontrol reconfigure
start_slurmd
for _ in $(seq 60); do sinfo -h -R -N -o '%N|%E' | grep -q . && break; sleep 0.5; done
sinfo -R -N -o '%N %E' | tee "$T/drained.txt"
reasons=$(sinfo -h -R -N -o '%N|%E')
case $reasons in "n2|peergate: nvswitch_fabric_not_ready"*) ;; *) fail "not n2 alone drained by peergate: $reasons" ;; esac
[ "$(printf '%s\n' "$reasons" | wc -l)" = 1 ] || fail "more than n2 drained: $reasons"
# What slurmd logged of the check's stdout (only when it exited non-zero; it may not be written yet).
grep -h "health_check failed" "$T/log/slurmd-n2.log" | tail -1 || true
echo "slurm-check: passed in $(($(date +%s) - started)) s ($T)"
