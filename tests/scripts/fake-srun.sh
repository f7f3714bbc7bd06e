#!/bin/sh
# A stand-in for Slurm's srun, for fleet run's tests: runs the command once per node (-N,
# default 2), each with SLURMD_NODENAME=node<i> and SLURM_PROCID=<i>, and exits with the
# highest exit status, as srun does. FAKE_SRUN_MACHINES (comma-separated) gives node i its
# own PEERGATE_SIMULATE; FAKE_SRUN_ANSWER (a number) makes only that many nodes answer;
# FAKE_SRUN_LOG names a file that gets the command each node would run, one line a call.
nodes=2
while [ $# -gt 0 ]; do
    case "$1" in
        -N) nodes=$2; shift 2 ;;
        -*) shift ;;
        *) break ;;
    esac
done
answer=${FAKE_SRUN_ANSWER:-$nodes}
[ -n "${FAKE_SRUN_LOG:-}" ] && echo "$*" >> "$FAKE_SRUN_LOG"
worst=0
i=0
while [ "$i" -lt "$answer" ]; do
    machine=$(echo "${FAKE_SRUN_MACHINES:-}" | cut -d, -f$((i + 1)))
    if [ -n "$machine" ]; then
        PEERGATE_SIMULATE=$machine SLURMD_NODENAME=node$i SLURM_PROCID=$i "$@"
    else
        SLURMD_NODENAME=node$i SLURM_PROCID=$i "$@"
    fi
    status=$?
    [ "$status" -gt "$worst" ] && worst=$status
    i=$((i + 1))
done
exit "$worst"
