#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Stands in for nvidia-smi on a 4x A100 host with NVLink bridges on (0,1) and (2,3).
# `topo -m` prints the real fixture unsloth_TOPO_BRIDGED_4X.txt; the --query-gpu listing is
# made up for the tests (names, bus ids and UUIDs in nvidia-smi's csv,noheader shape).
here=$(dirname "$0")
if [ "$1" = topo ] && [ "$2" = -m ] && [ $# -eq 2 ]; then
    exec cat "$here/../fixtures/topo_m/unsloth_TOPO_BRIDGED_4X.txt"
fi
if [ "$1" = --query-gpu=index,name,pci.bus_id,uuid ] && [ "$2" = --format=csv,noheader ]; then
    echo "0, NVIDIA A100-SXM4-40GB, 00000000:07:00.0, GPU-0a0a0a0a-0000-4000-8000-000000000000"
    echo "1, NVIDIA A100-SXM4-40GB, 00000000:0F:00.0, GPU-1b1b1b1b-0000-4000-8000-000000000001"
    echo "2, NVIDIA A100-SXM4-40GB, 00000000:47:00.0, GPU-2c2c2c2c-0000-4000-8000-000000000002"
    echo "3, NVIDIA A100-SXM4-40GB, 00000000:4E:00.0, GPU-3d3d3d3d-0000-4000-8000-000000000003"
    exit 0
fi
echo "fake nvidia-smi: unexpected arguments: $*" >&2
exit 2
