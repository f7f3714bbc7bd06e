#!/usr/bin/env bash
# Installs exactly what peergate's build, tests and benchmarks need, from Debian/Ubuntu
# packages. Idempotent: packages already present are left alone.
set -euo pipefail

packages=(
  cmake ninja-build g++ ccache pkg-config
  libfmt-dev libcli11-dev nlohmann-json3-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  python3 clang-format
)
# The ecosystems' own checkers, which judge export's files in the tests (promtool from
# prometheus, dot from graphviz). Best effort: the tests that need them skip without them.
checkers=(prometheus graphviz)
# The Python package's test (tests/python/run.sh): a venv, pip without network, pytest.
checkers+=(python3-venv python3-pip python3-setuptools python3-wheel python3-pytest python3-yaml)
# The Debian package check (scripts/deb-check.sh): dpkg-shlibdeps, lintian, systemd-analyze and
# systemd's pkg-config file, man for the generated pages (tests/docs/run.sh).
checkers+=(dpkg-dev file lintian systemd man-db)
# The real Slurm cluster of scripts/slurm-check.sh (ctest's slurm.real_cluster, run as root):
# slurmctld, slurmd, srun and munged. The packages' own daemons are not started here (no systemd
# in a container; the check runs its own on private ports).
checkers+=(slurm-wlm munge)
# The browser that renders doctor --html in tests/browser/run.sh (ctest's browser.doctor_pages).
checkers+=(chromium)

missing_from() {
  for pkg in "$@"; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then
      echo "$pkg"
    fi
  done
}

mapfile -t missing < <(missing_from "${packages[@]}")
mapfile -t missing_checkers < <(missing_from "${checkers[@]}")
if [ ${#missing[@]} -eq 0 ] && [ ${#missing_checkers[@]} -eq 0 ]; then
  echo "install-deps: all $((${#packages[@]} + ${#checkers[@]})) packages present"
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  sudo="sudo"
fi
$sudo apt-get update -qq
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
if [ ${#missing_checkers[@]} -gt 0 ]; then
  echo "install-deps: installing the checkers ${missing_checkers[*]}"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
    "${missing_checkers[@]}" ||
    echo "install-deps: could not install ${missing_checkers[*]}: the tests that use them will skip"
fi
