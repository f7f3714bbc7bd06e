#!/usr/bin/env bash
# The Python package's test: a fresh venv, `pip install` of python/ with this build's install
# tree bundled (python/setup.py, PEERGATE_BUILD_DIR), then pytest on python/tests against the
# installed package, as a user's launcher would import it (docs/python.md).
# Usage: run.sh BUILD_DIR SOURCE_DIR "SANITIZE" VERSION SOVERSION
# Exit 77 (skipped) with the reason where Debian's python3-venv or python3-pytest is missing.
set -euo pipefail
build=$1 source=$2 sanitize=${3:-} version=$4 soversion=$5
python=/usr/bin/python3

skip() { echo "python.package: skipped: $*"; exit 77; }
[ -x "$python" ] || skip "no $python (Debian's python3)"
"$python" -c 'import ensurepip, venv' 2>/dev/null || skip "no venv module (Debian's python3-venv)"
"$python" -c 'import pytest, setuptools, wheel' 2>/dev/null ||
  skip "pytest, setuptools or wheel missing (python3-pytest, python3-setuptools, python3-wheel)"
case "$sanitize" in
  *thread*) skip "a ThreadSanitizer libpeergate.so cannot be loaded into python3 (static TLS)" ;;
esac

work=$(mktemp -d "${TMPDIR:-/tmp}/peergate-python.XXXXXX")
trap 'rm -rf "$work"' EXIT
# The system's pytest, setuptools and wheel, but a venv of its own: nothing is installed
# outside $work, and pip needs no network (--no-index, --no-build-isolation).
"$python" -m venv --system-site-packages "$work/venv"
# A copy of python/, so the in-tree build pip does leaves nothing in the source tree.
cp -r "$source/python" "$work/src"
rm -rf "$work/src/build" "$work/src"/*.egg-info
PEERGATE_BUILD_DIR=$build "$work/venv/bin/pip" install --quiet --no-index --no-build-isolation \
  "$work/src" > "$work/pip.log" 2>&1 || { cat "$work/pip.log"; exit 1; }

export PEERGATE_EXPECTED_VERSION=$version PEERGATE_EXPECTED_SOVERSION=$soversion
unset PEERGATE_SIMULATE PEERGATE_LIBRARY
if [ -n "$sanitize" ]; then
  # An instrumented libpeergate.so in an uninstrumented python3: the sanitizer runtime must be
  # loaded first, and python3's own allocations are not this project's leaks.
  runtime=$(gcc -print-file-name=libasan.so)
  [ -f "$runtime" ] || skip "no libasan.so to preload for the sanitizer build"
  export LD_PRELOAD=$runtime ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
fi
cd "$work"  # `import peergate` must find the installed package, not python/ in the sources
"$work/venv/bin/python" -m pytest -q -p no:cacheprovider "$source/python/tests"
