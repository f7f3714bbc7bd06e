#!/bin/sh
# A stand-in nvidia-smi for the cross-check tests: `topo -m` prints the file named by
# PEERGATE_FAKE_TOPO_M; anything else fails, as a broken query would.
if [ "$1" = "topo" ] && [ "$2" = "-m" ]; then
    cat "$PEERGATE_FAKE_TOPO_M"
    exit 0
fi
echo "fake nvidia-smi: only topo -m is simulated" >&2
exit 1
