#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# nvidia-smi stuck on a hung GPU: never answers. peergate must kill it at its 10 s timeout.
exec sleep 60
