#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# nvidia-smi whose `topo -m` output was cut off after 4 of 8 rows, with exit status 0
# (the real fixture unsloth_ROW_TRUNCATED_8X.txt).
here=$(dirname "$0")
case "$1" in
    topo) exec cat "$here/../fixtures/topo_m/unsloth_ROW_TRUNCATED_8X.txt" ;;
    *) exit 6 ;;
esac
