#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# nvidia-smi after a driver upgrade without a reboot: the two lines on stdout and exit
# status 18, as reported in anderskm/gputil#55 and mozilla/translations#1167.
echo "Failed to initialize NVML: Driver/library version mismatch"
echo "NVML library version: 535.161"
exit 18
