#!/bin/bash
# Checks peergate's Slurm outputs against real Slurm daemons, on one host without GPUs:
#  1. `export gres` for the simulated DGX-1 cube mesh, parsed by `slurmd -G`;
#  2. `fleet run` through a real srun on a private cluster of three slurmd (Debian's build
#     runs several slurmd on one host; docs/ecosystem.md §3.4), simulated nodes;
#  3. the same with one node simulating another machine: fleet run must exit 1 naming it;
#  4. fleet health --drain: a failing node drains itself with a "peergate:" reason, resumes
#     when healthy again, and a node an admin drained stays drained.
# Needs root and the Debian packages slurm-wlm and munge (not installed by install-deps: CI
# does not run this). Leaves nothing running: every daemon is stopped by its PID.
# Usage: scripts/slurm-check.sh [BUILD_DIR]   (default build/release)
set -euo pipefail
build=$(cd "${1:-build/release}" && pwd)
pg="$build/bin/peergate"
[ -x "$pg" ] || { echo "slurm-check: no $pg: build it first" >&2; exit 2; }
for tool in /usr/sbin/slurmd /usr/sbin/slurmctld /usr/sbin/munged /usr/bin/srun /usr/bin/sinfo; do
    [ -x "$tool" ] || { echo "slurm-check: $tool missing (apt-get install slurm-wlm munge)" >&2; exit 77; }
done
T=$(mktemp -d /tmp/peergate-slurm.XXXXXX)
H=$(hostname -s)
stop() {
    for f in "$T"/slurmd-*.pid "$T/slurmctld.pid" "$T/munge/munged.pid"; do
        [ -s "$f" ] && kill "$(cat "$f")" 2>/dev/null || true
    done
}
trap stop EXIT
mkdir -p "$T"/{munge,state,log,dev,spool/n1,spool/n2,spool/n3} && chmod 700 "$T/munge"
dd if=/dev/urandom of="$T/munge/munge.key" bs=1 count=1024 status=none
chmod 400 "$T/munge/munge.key"
/usr/sbin/munged --force -S "$T/munge/munge.sock" --key-file="$T/munge/munge.key" \
    --log-file="$T/munge/munged.log" --pid-file="$T/munge/munged.pid" --seed-file="$T/munge/munged.seed"
for i in 0 1 2 3 4 5 6 7; do mknod "$T/dev/nvidia$i" c 195 "$i"; done

# 1. The exported lines, with File= pointed at the device nodes made above and Cores= taken
#    out: slurmd checks Cores= against this host's own CPUs (two here, forty on a DGX-1).
"$pg" --simulate dgx1-v100 export gres --node-name 'n[1-3]' --gres-type v100 |
    sed -e "s|File=/dev/|File=$T/dev/|" -e "s| Cores=[0-9,-]*||" > "$T/gres.conf"
cat > "$T/slurm.conf" <<CONF
ClusterName=pgcheck
SlurmctldHost=$H
SlurmctldPort=16817
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$T/munge/munge.sock
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
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
NodeName=n[1-3] NodeHostname=$H NodeAddr=127.0.0.1 Port=[17001-17003] CPUs=2 Gres=gpu:v100:8 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$T/slurm.conf"
echo "== slurmd -G on the exported gres.conf"
/usr/sbin/slurmd -f "$SLURM_CONF" -N n1 -G 2>&1 | grep -E "Gres Name=gpu|error" | tee "$T/gres-parsed.txt"
[ "$(grep -c 'Links=' "$T/gres-parsed.txt")" = 8 ] || { echo "slurm-check: slurmd did not list 8 GPUs with Links" >&2; exit 1; }

echo "== three slurmd"
/usr/sbin/slurmctld -f "$SLURM_CONF"
for n in n1 n2 n3; do /usr/sbin/slurmd -f "$SLURM_CONF" -N "$n"; done
for _ in $(seq 30); do [ "$(sinfo -h -t idle -o %D 2>/dev/null)" = 3 ] && break; sleep 1; done
sinfo -N -o '%N %T %G'

echo "== fleet run, three like nodes"
PEERGATE_SIMULATE=hgx-b200-8x "$pg" fleet run -N 3 --timeout 120 --save "$T/all.jsonl"
echo "rc=$?"

echo "== fleet run, one node unlike the others"
cat > "$T/node.sh" <<NODE
#!/bin/sh
# Node n3 simulates the DGX-1; the others the 8x B200.
[ "\$SLURMD_NODENAME" = n3 ] && export PEERGATE_SIMULATE=dgx1-v100 || export PEERGATE_SIMULATE=hgx-b200-8x
exec "$pg" "\$@"
NODE
chmod +x "$T/node.sh"
set +e
srun -N 3 --ntasks-per-node=1 --kill-on-bad-exit=0 "$T/node.sh" fleet node > "$T/mixed.jsonl"
"$pg" fleet merge --nodes 3 "$T/mixed.jsonl"
status=$?
set -e
echo "rc=$status"
[ "$status" = 1 ] || { echo "slurm-check: the unlike node was not found" >&2; exit 1; }
echo "== fleet health --drain"
state() { sinfo -h -n "$1" -o '%T'; }
set +e
SLURMD_NODENAME=n2 "$pg" --simulate pcie-rtx6000ada-2x-iommu fleet health --drain; echo "rc=$?"
set -e
scontrol show node n2 | tee "$T/n2-drained.txt" | grep -E "State=|Reason="
grep -q "Reason=peergate: " "$T/n2-drained.txt" || { echo "slurm-check: n2 was not drained by peergate" >&2; exit 1; }
SLURMD_NODENAME=n2 "$pg" --simulate hgx-b200-8x fleet health --drain -v
sleep 1
echo "n2: $(state n2)"
case $(state n2) in *drain*) echo "slurm-check: n2 was not resumed" >&2; exit 1 ;; esac
scontrol update NodeName=n1 State=DRAIN Reason="admin: maintenance"
SLURMD_NODENAME=n1 "$pg" --simulate hgx-b200-8x fleet health --drain -v
echo "n1: $(state n1)"
case $(state n1) in *drain*) ;; *) echo "slurm-check: n1, drained by an admin, was resumed" >&2; exit 1 ;; esac
scontrol show node n1 > "$T/n1-admin-drained.txt"
scontrol update NodeName=n1 State=RESUME
echo "slurm-check: passed ($T)"
