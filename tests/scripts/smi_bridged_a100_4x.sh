#!/bin/sh
# A stand-in nvidia-smi for e2e tests: the 4x A100 box with NVLink bridges on 0-1 and 2-3
# (tests/fixtures/topo_m/unsloth_TOPO_BRIDGED_4X.txt) and its --query-gpu listing.
here=$(dirname "$0")
case "$1" in
topo) cat "$here/../fixtures/topo_m/unsloth_TOPO_BRIDGED_4X.txt" ;;
--query-gpu=*)
    printf '%s\n' '0, NVIDIA A100-SXM4-80GB, 00000000:07:00.0, GPU-00000000-0000-0000-0000-000000000000' \
        '1, NVIDIA A100-SXM4-80GB, 00000000:0B:00.0, GPU-00000000-0000-0000-0000-000000000001' \
        '2, NVIDIA A100-SXM4-80GB, 00000000:48:00.0, GPU-00000000-0000-0000-0000-000000000002' \
        '3, NVIDIA A100-SXM4-80GB, 00000000:4C:00.0, GPU-00000000-0000-0000-0000-000000000003' ;;
*) echo "unsupported: $*" >&2; exit 2 ;;
esac
