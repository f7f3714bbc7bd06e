#!/usr/bin/env bash
# The install test: installs the build into a temporary prefix, then builds and runs a C++
# consumer through find_package(peergate) and a C consumer through pkg-config, against that
# prefix alone, and runs the installed peergate on a built-in simulated machine.
# Usage: run.sh BUILD_DIR SOURCE_DIR CXX CC "SANITIZE_FLAGS"
# A sanitizer build's libpeergate.so needs the sanitizer runtime first in the consumer too, so
# the consumers are built with the same -fsanitize flags.
set -euo pipefail
build=$1 source=$2 cxx=$3 cc=$4 sanitize=${5:-}
prefix=$(mktemp -d "${TMPDIR:-/tmp}/peergate-install.XXXXXX")
trap 'rm -rf "$prefix"' EXIT

cmake --install "$build" --prefix "$prefix/usr" > "$prefix/install.log"
for header in gate.hpp peergate_c.h; do
  test -f "$prefix/usr/include/peergate/$header" || { echo "not installed: $header"; exit 1; }
done

# The installed binary finds its simulated parts under its own prefix, wherever the libdir is.
"$prefix/usr/bin/peergate" --simulate bridged-a100-4x topo > "$prefix/topo.txt" ||
  { echo "installed peergate --simulate failed"; cat "$prefix/topo.txt"; exit 1; }

flags=""
if [ -n "$sanitize" ]; then
  flags="-fsanitize=$sanitize"
fi
cmake -S "$source/tests/install" -B "$prefix/consumer" -G Ninja -DCMAKE_CXX_COMPILER="$cxx" \
  -DCMAKE_PREFIX_PATH="$prefix/usr" -DCMAKE_CXX_FLAGS="$flags" > "$prefix/configure.log" ||
  { cat "$prefix/configure.log"; exit 1; }
cmake --build "$prefix/consumer" > "$prefix/build.log" || { cat "$prefix/build.log"; exit 1; }
libdir=$(dirname "$(find "$prefix/usr" -name 'libpeergate.so' -print -quit)")
# The SONAME carries the ABI version (docs/c-api.md): programs and ctypes load libpeergate.so.N,
# and the unversioned name is only the development link.
soname=$(readelf -d "$libdir/libpeergate.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
case "$soname" in
  libpeergate.so.[0-9]*) test -e "$libdir/$soname" || { echo "SONAME $soname not installed"; exit 1; } ;;
  *) echo "libpeergate.so has no versioned SONAME (got '$soname')"; exit 1 ;;
esac
LD_LIBRARY_PATH="$libdir" "$prefix/consumer/consumer_cpp"

pc=$(find "$prefix/usr" -name peergate.pc -print -quit)
export PKG_CONFIG_PATH
PKG_CONFIG_PATH=$(dirname "$pc")
# shellcheck disable=SC2046  # pkg-config's output is a list of words
"$cc" -std=c11 -Wall -Werror $flags "$source/tests/install/consumer.c" -o "$prefix/consumer_c" \
  $(pkg-config --cflags --libs peergate) 2>&1 || { echo "C consumer did not build"; exit 1; }
LD_LIBRARY_PATH="$libdir" "$prefix/consumer_c"
echo "install test: C++ (find_package) and C (pkg-config) consumers built and ran"
