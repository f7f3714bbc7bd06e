#!/bin/sh
# A stand-in nvidia-smi: 2x RTX 6000 Ada over PCIe (NODE), the silent-drop host of the
# original report (tests/fixtures/topo_m/unsloth_TOPO_PCIE_2X.txt).
here=$(dirname "$0")
case "$1" in
topo) cat "$here/../fixtures/topo_m/unsloth_TOPO_PCIE_2X.txt" ;;
--query-gpu=*)
    printf '%s\n' '0, NVIDIA RTX 6000 Ada Generation, 00000000:01:00.0, GPU-00000000-0000-0000-0000-00000000000a' \
        '1, NVIDIA RTX 6000 Ada Generation, 00000000:41:00.0, GPU-00000000-0000-0000-0000-00000000000b' ;;
*) echo "unsupported: $*" >&2; exit 2 ;;
esac
