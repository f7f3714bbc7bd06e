#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Stands in for nvidia-smi on an 8x B200 NVSwitch host: `topo -m` prints the real fixture
# unsloth_TOPO_NVLINK_8X.txt; --query-gpu fails, so names and bus ids stay unknown while the
# matrix is still readable.
here=$(dirname "$0")
case "$1" in
    topo) exec cat "$here/../fixtures/topo_m/unsloth_TOPO_NVLINK_8X.txt" ;;
    --query-gpu=*) echo "fake nvidia-smi: query not supported" >&2; exit 6 ;;
    *) echo "fake nvidia-smi: unexpected arguments: $*" >&2; exit 2 ;;
esac
