# SPDX-License-Identifier: Apache-2.0
"""peergate.gate and peergate.apply decide exactly as the `peergate` command installed with the
library does, on the same simulated machine, verdict cache and environment (docs/python.md).

This process never has PEERGATE_SIM_MACHINE in its environment (the library sets none): the
simulated CUDA driver the library loads into it, to match a cached verdict to the machine, is
told its machine by the library, as the command's is. All the machines are decided in this one
process, one after the other, as a launcher deciding for several would."""
import json
import os
import shutil
import subprocess
from pathlib import Path

import peergate
import pytest
from conftest import simulated
from peergate import _library
from peergate.__main__ import find_command

# The repository's fixture machines (tests/python/run.sh runs these tests from the sources).
FIXTURES = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "machines"


@pytest.fixture(autouse=True)
def no_cuda_mask_in_this_process(monkeypatch):
    """The same environment on both sides as far as CUDA cares: the CUDA driver the library
    opens in this process to match a cached verdict reads this process's mask, as the command's
    reads the command's (docs/python.md), and the environments given here carry none."""
    for name in ("CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER"):
        monkeypatch.delenv(name, raising=False)


def command():
    """The peergate command of the library in use (the wheel's bin/peergate)."""
    for candidate in find_command():
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    pytest.skip("no peergate command installed with the library")


def builtin_machines():
    found = sorted(_library.bundled_prefix().glob("**/peergate/machines/*.json"))
    return [path.stem for path in found]


def cache_env(machine, tmp_path, **extra):
    """`machine` with a verdict cache and host roots of this test's own."""
    return simulated(machine, PEERGATE_CACHE_DIR=str(tmp_path / "cache"), TMPDIR=str(tmp_path),
                     HOME="/nonexistent-home", **extra)


def run(args, env):
    return subprocess.run([command(), *args], env=env, capture_output=True, text=True, timeout=120)


def probe(env):
    """`peergate probe --mode all`: records this boot's verdicts in the cache."""
    result = run(["probe", "--mode", "all"], env)
    assert list(Path(env["PEERGATE_CACHE_DIR"]).glob("probe-*.json")), result.stdout + result.stderr


def command_decision(env, gpus):
    args = ["gate", "--json"] + (["--gpus", gpus] if gpus is not None else [])
    result = run(args, env)
    return json.loads(result.stdout)


def assert_same_decision(env, gpus, where):
    assert "PEERGATE_SIM_MACHINE" not in os.environ
    library = peergate.gate(gpus=gpus, env=env).document
    cmd = command_decision(env, gpus)
    assert library == cmd, (
        f"{where}: peergate.gate() decided {library['rule']} (p2p {library['p2p']}), "
        f"`peergate gate` {cmd['rule']} (p2p {cmd['p2p']}):\n"
        f"library: {json.dumps(library, indent=1)}\ncommand: {json.dumps(cmd, indent=1)}")
    return library


def test_the_lossy_box_with_a_cached_loss_is_vetoed_by_the_probe_as_the_command_does(tmp_path):
    env = cache_env("pcie-rtx6000ada-2x-iommu", tmp_path)
    probe(env)
    decision = assert_same_decision(env, "0,1", "lossy box, cached loss")
    assert decision["rule"] == "probe_failed"
    assert not any("cuInit failed" in w for w in decision["warnings"]), decision["warnings"]


def test_a_cached_pass_on_a_pcie_box_decides_as_the_command_does(tmp_path):
    env = cache_env(str(FIXTURES / "probe-intact-2x.json"), tmp_path)
    probe(env)
    untrusted = assert_same_decision(env, "0,1", "PCIe box, cached pass")
    assert untrusted["p2p"] is False
    trusted = assert_same_decision(dict(env, PEERGATE_TRUST_PROBE="1"), "0,1",
                                   "PCIe box, trusted cached pass")
    assert trusted["p2p"] is True and trusted["rule"] == "probe_passed"


def test_an_nvlink_box_with_a_cached_pass_decides_as_the_command_does(tmp_path):
    env = cache_env("hgx-b200-8x", tmp_path)
    probe(env)
    decision = assert_same_decision(env, "0,1", "NVLink box, cached pass")
    assert decision["p2p"] is True


@pytest.mark.parametrize("machine", builtin_machines())
def test_every_builtin_machine_decides_as_the_command_does(machine, tmp_path):
    env = cache_env(machine, tmp_path)
    assert_same_decision(env, None, f"{machine}, no cache, every GPU")
    if len(peergate.topology(env=env).gpus) < 2:
        # GPU 1 is not there: a usage error for both (test_gate.py), never a decision
        with pytest.raises(peergate.PeergateError):
            peergate.gate(gpus="0,1", env=env)
        assert run(["gate", "--json", "--gpus", "0,1"], env).returncode == 2
        return  # one GPU: nothing to probe
    assert_same_decision(env, "0,1", f"{machine}, no cache")
    probe(env)
    assert_same_decision(env, "0,1", f"{machine}, cached probe")
    assert_same_decision(dict(env, PEERGATE_TRUST_PROBE="1"), "0,1",
                         f"{machine}, cached probe, trusted")


def test_apply_leaves_the_environment_peergate_exec_gives_its_child(tmp_path):
    env = cache_env("pcie-rtx6000ada-2x-iommu", tmp_path, GGML_CUDA_P2P="0")
    probe(env)
    child = run(["exec", "--gpus", "0,1", "--", shutil.which("env") or "/usr/bin/env"], env)
    applied = dict(env)
    peergate.apply(applied, gpus=[0, 1])
    seen = dict(line.split("=", 1) for line in child.stdout.splitlines() if "=" in line)
    assert applied == seen
