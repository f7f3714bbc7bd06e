#!/usr/bin/env bash
# The Debian package check (docs/packaging.md): builds the deb preset, makes the packages with
# CPack, judges them with lintian (no error allowed), installs them with dpkg, runs the
# installed peergate, its man pages and its completion from the installed paths, verifies the
# systemd units with systemd-analyze, and removes the packages again.
# Exit 77 (skipped, with the reason) where a tool it needs is missing or it may not install
# packages; PEERGATE_DEB_CHECK=0 skips it on purpose.
set -euo pipefail
cd "$(dirname "$0")/.."

skip() {
  echo "deb-check: skipped: $*"
  exit 77
}
[ "${PEERGATE_DEB_CHECK:-1}" != 0 ] || skip "PEERGATE_DEB_CHECK=0"
for tool in dpkg-deb dpkg-shlibdeps lintian systemd-analyze pkg-config man; do
  command -v "$tool" > /dev/null || skip "$tool is not installed (scripts/install-deps.sh installs it)"
done
pkg-config --exists systemd || skip "systemd's pkg-config file is missing (Debian's systemd package)"
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  sudo -n true 2> /dev/null || skip "dpkg -i needs root or password-less sudo"
  sudo="sudo -n"
fi
if dpkg-query -W -f='${Status}' peergate 2> /dev/null | grep -q 'install ok installed'; then
  skip "a peergate package is installed on this machine already; the check would replace it"
fi

build=build/deb
cmake --preset deb > /dev/null
cmake --build --preset deb -j "${JOBS:-2}"
rm -f "$build"/*.deb
(cd "$build" && cpack -G DEB > cpack.log) || { cat "$build/cpack.log"; exit 1; }
mapfile -t debs < <(ls "$build"/*.deb)
[ ${#debs[@]} -eq 3 ] || { echo "deb-check: expected 3 packages, got: ${debs[*]}"; exit 1; }

contains() {  # PACKAGE PATH...: the package holds every PATH
  local deb=$1 listing
  shift
  listing=$(dpkg-deb -c "$build/$deb"_*.deb | awk '{print $6}')
  for path in "$@"; do
    grep -qx "\./${path#/}" <<< "$listing" || { echo "deb-check: $deb lacks $path"; exit 1; }
  done
}
libdir=usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)
contains peergate usr/bin/peergate usr/share/man/man1/peergate.1.gz \
  usr/share/man/man1/peergate-doctor.1.gz usr/share/man/man1/peergate-fleet-health.1.gz \
  usr/share/bash-completion/completions/peergate usr/share/peergate/machines/hgx-b200-8x.json \
  "$libdir/peergate/libpeergate_sim_nvml.so" usr/libexec/peergate/slurm-health-check \
  lib/systemd/system/peergate-export.service lib/systemd/system/peergate-export.timer \
  usr/lib/tmpfiles.d/peergate.conf etc/default/peergate-export usr/share/doc/peergate/copyright
contains libpeergate0 "$libdir/libpeergate.so.0" usr/share/doc/libpeergate0/copyright
contains libpeergate-dev "$libdir/libpeergate.so" usr/include/peergate/peergate_c.h \
  "$libdir/cmake/peergate/peergateConfig.cmake" "$libdir/pkgconfig/peergate.pc"

# lintian: no error; warnings are printed for the record.
lintian --fail-on error "${debs[@]}" ||
  { echo "deb-check: lintian found errors"; exit 1; }

trap '$sudo dpkg --purge peergate libpeergate-dev libpeergate0 > /dev/null || true' EXIT
$sudo dpkg -i "${debs[@]}" > "$build/dpkg.log" || { cat "$build/dpkg.log"; exit 1; }
/usr/bin/peergate --version | grep -qx "peergate $(sed -n 's/^project(peergate VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)" ||
  { echo "deb-check: the installed peergate --version is wrong"; exit 1; }
status=0
/usr/bin/peergate --simulate hgx-b200-8x doctor > "$build/doctor.txt" || status=$?
[ "$status" -le 1 ] && grep -q "GPU" "$build/doctor.txt" ||
  { echo "deb-check: installed doctor failed ($status)"; cat "$build/doctor.txt"; exit 1; }
for page in peergate peergate-doctor peergate-export peergate-fleet-run; do
  warnings=$(MANWIDTH=80 man --warnings=w -E UTF-8 "$page" 2>&1 > /dev/null)
  [ -z "$warnings" ] || { echo "deb-check: man $page: $warnings"; exit 1; }
done
bash -c 'source /usr/share/bash-completion/completions/peergate
  COMP_WORDS=(peergate --simulate hgx-b200); COMP_CWORD=2; _peergate
  [ "${COMPREPLY[*]}" = hgx-b200-8x ]' || { echo "deb-check: the completion does not offer the machines"; exit 1; }
systemd-analyze verify /lib/systemd/system/peergate-export.service \
  /lib/systemd/system/peergate-export.timer || { echo "deb-check: systemd-analyze verify failed"; exit 1; }
[ /usr/libexec/peergate/../../bin/peergate -ef /usr/bin/peergate ] || { echo "deb-check: slurm-health-check does not find peergate"; exit 1; }
echo "deb-check: ${#debs[@]} packages built, lintian clean of errors, installed and run"
