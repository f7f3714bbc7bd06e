# SPDX-License-Identifier: Apache-2.0
"""Builds the peergate wheel with a CMake install tree inside it (peergate/_prefix).

The package finds libpeergate.so.N beside itself first (docs/python.md), and the library
finds its simulated machines and its identity helper from its own prefix, so the wheel
carries one whole prefix: bin/peergate, lib/libpeergate.so.N, the simulated parts and the
built-in machines. Where it comes from, in order:
  PEERGATE_BUILD_DIR  a configured and built CMake build of this repository (`cmake --install`);
  PEERGATE_NO_BUNDLE=1  nothing: the package then uses PEERGATE_LIBRARY or the system's library;
  otherwise           CMake configures and builds a release build of the repository around
                      this folder (build/python), then installs it.
"""
import os
import shutil
import subprocess
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

# What the package does not need from an install tree (the development files, the docs).
UNBUNDLED = ("include", "share/doc", "share/man", "share/bash-completion", "lib/cmake",
             "lib/pkgconfig")


def run(argv):
    print("peergate setup:", " ".join(str(a) for a in argv), flush=True)
    subprocess.run([str(a) for a in argv], check=True)


def cmake_build_dir():
    given = os.environ.get("PEERGATE_BUILD_DIR")
    if given:
        # pip runs this in the source folder: a relative path is the caller's, from their PWD.
        build = Path(os.environ.get("PWD", "."), given).resolve()
        if not (build / "CMakeCache.txt").is_file():
            raise SystemExit(f"peergate setup: PEERGATE_BUILD_DIR={given} ({build}) is not a "
                             "configured CMake build of peergate")
        return build
    if not (ROOT / "CMakeLists.txt").is_file():
        raise SystemExit("peergate setup: no PEERGATE_BUILD_DIR and no CMake project at "
                         f"{ROOT}; set PEERGATE_BUILD_DIR or PEERGATE_NO_BUNDLE=1")
    build = ROOT / "build" / "python"
    run(["cmake", "-S", ROOT, "-B", build, "-DCMAKE_BUILD_TYPE=Release",
         "-DPEERGATE_BUILD_TESTS=OFF"])
    run(["cmake", "--build", build, "-j", str(os.cpu_count() or 2)])
    return build


def install_prefix(build, prefix):
    if prefix.exists():
        shutil.rmtree(prefix)
    # Stripped: the wheel carries programs, not their debug information (a tenth of the size).
    run(["cmake", "--install", build, "--prefix", prefix, "--strip"])
    for relative in UNBUNDLED:
        for path in prefix.glob(relative.replace("lib/", "lib*/", 1)):
            shutil.rmtree(path) if path.is_dir() else path.unlink()
    if not any(prefix.glob("lib*/**/libpeergate.so.*")):
        raise SystemExit(f"peergate setup: {build} installed no libpeergate.so.N")


class BuildWithPrefix(build_py):
    def run(self):
        super().run()
        if os.environ.get("PEERGATE_NO_BUNDLE") == "1":
            return
        install_prefix(cmake_build_dir(), Path(self.build_lib) / "peergate" / "_prefix")


class NativeDistribution(Distribution):
    """A wheel that carries native code is for one platform, not 'py3-none-any'."""

    def has_ext_modules(self):
        return os.environ.get("PEERGATE_NO_BUNDLE") != "1"


setup(cmdclass={"build_py": BuildWithPrefix}, distclass=NativeDistribution)
