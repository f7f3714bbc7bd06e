# SPDX-License-Identifier: Apache-2.0
"""The package itself: where it finds the library, its version, its threads, `python -m`."""
import json
import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import peergate
from peergate import _library
from conftest import simulated


def test_the_version_and_soname_are_cmakes(expected):
    assert peergate.__version__ == expected["version"]
    assert _library.SONAME_MAJOR == expected["soversion"]
    assert peergate.library_path().endswith(f"libpeergate.so.{expected['soversion']}")


def test_an_installed_wheel_uses_the_library_it_carries():
    path = Path(peergate.library_path())
    assert Path(peergate.__file__).parent / "_prefix" in path.parents, path


def run_python(code, env):
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          timeout=120)


def test_peergate_library_names_the_library(tmp_path):
    env = dict(os.environ, PEERGATE_LIBRARY=str(tmp_path / "libpeergate.so.0"))
    result = run_python("import peergate; peergate.gate()", env)
    assert result.returncode != 0
    assert "cannot load the library PEERGATE_LIBRARY names" in result.stderr
    assert str(tmp_path / "libpeergate.so.0") in result.stderr


def test_a_missing_library_names_every_place_looked(tmp_path):
    # The package's sources without a bundled prefix, on a loader path with no peergate.
    copy = tmp_path / "peergate"
    shutil.copytree(Path(peergate.__file__).parent, copy,
                    ignore=shutil.ignore_patterns("_prefix", "__pycache__"))
    env = {k: v for k, v in os.environ.items() if k not in ("PEERGATE_LIBRARY", "LD_LIBRARY_PATH")}
    env["PYTHONPATH"] = str(tmp_path)
    result = run_python("import peergate; peergate.gate()", env)
    if "was not found" not in result.stderr and result.returncode == 0:
        import pytest
        pytest.skip("this system has a libpeergate.so.0 of its own")
    assert "libpeergate.so.0 was not found; looked at:" in result.stderr, result.stderr
    assert "PEERGATE_LIBRARY: not set" in result.stderr
    assert str(copy / "_prefix") in result.stderr or str(copy / "libpeergate.so.0") in result.stderr
    assert "libpeergate.so.0: " in result.stderr


def test_many_threads_decide_at_once(bridged):
    reference = {gpus: peergate.gate(gpus=gpus, env=bridged) for gpus in ("0,1", "0,2", "2,3")}
    jobs = [gpus for _ in range(8) for gpus in reference]
    with ThreadPoolExecutor(max_workers=8) as pool:
        decisions = list(pool.map(lambda gpus: (gpus, peergate.gate(gpus=gpus, env=bridged)), jobs))
    assert len(decisions) == 24
    for gpus, decision in decisions:
        assert decision == reference[gpus], gpus


def test_python_dash_m_runs_the_commands_gate():
    env = dict(os.environ, **simulated("bridged-a100-4x"))
    result = subprocess.run([sys.executable, "-m", "peergate", "--gpus", "0,1", "--json"], env=env,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["schema"] == "peergate.gate/v1" and doc["p2p"] is True
    vetoed = subprocess.run([sys.executable, "-m", "peergate", "--gpus", "0,2"], env=env,
                            capture_output=True, text=True, timeout=120)
    assert vetoed.returncode == 1, vetoed.stderr
