#!/usr/bin/env bash
# Installs the dependencies, builds with AddressSanitizer + UndefinedBehaviorSanitizer and
# runs every test through ctest. This is the README's test command and what CI runs.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset asan
cmake --build --preset asan -j "${JOBS:-2}"
ctest --preset asan -j "${JOBS:-2}"
