#!/bin/sh
# A stand-in for Slurm's scontrol, for fleet health's tests: appends its arguments, one call
# per line, and then the SLURM_CONF it was given, to $FAKE_SCONTROL_LOG; `show node` prints
# the file $FAKE_SCONTROL_SHOW.
echo "$*" >> "$FAKE_SCONTROL_LOG"
echo "SLURM_CONF=${SLURM_CONF-(unset)}" >> "$FAKE_SCONTROL_LOG"
if [ "$1" = show ]; then
    cat "$FAKE_SCONTROL_SHOW"
fi
