#!/usr/bin/env bash
# Installs the dependencies, builds with AddressSanitizer + UndefinedBehaviorSanitizer and
# runs every test through ctest (the threaded ones also under ThreadSanitizer), then checks the
# Debian packages. This is the README's test command and what CI runs.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
# ccache keys on paths: relative to the checkout, and without the build directory's own path
# in debug builds, a fresh clone elsewhere on the same machine reuses what an earlier checkout
# compiled (CI clones into a new folder each run). Objects whose flags name the checkout
# (the tests' -D paths) still compile anew.
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
cmake --preset asan
cmake --build --preset asan -j "${JOBS:-2}"
# The threaded parts under ThreadSanitizer first: the tests labelled threads (tests/unit/threads,
# about 8 minutes of building on 2 CPUs), so that the whole suite's summary below comes last.
cmake --preset tsan
cmake --build --preset tsan -j "${JOBS:-2}" --target peergate_unit_threads_tests
ctest --preset tsan -j "${JOBS:-2}"
ctest --preset asan -j "${JOBS:-2}"
# The Debian packages, built, judged by lintian, installed and run (docs/packaging.md); 77 is
# skipped, with the reason printed.
status=0
scripts/deb-check.sh || status=$?
[ "$status" -eq 0 ] || [ "$status" -eq 77 ]
