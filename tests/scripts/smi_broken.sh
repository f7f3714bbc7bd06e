#!/bin/sh
# A stand-in nvidia-smi whose driver is gone: every call fails, as after a driver upgrade
# without a reboot.
echo "Failed to initialize NVML: Driver/library version mismatch"
exit 18
