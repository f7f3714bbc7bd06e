# SPDX-License-Identifier: Apache-2.0
"""peergate.gate and peergate.apply on simulated machines."""
import os

import peergate
import pytest
from conftest import simulated


def test_an_nvlinked_pair_is_allowed(bridged):
    decision = peergate.gate(gpus=[0, 1], env=bridged)
    assert decision.allowed
    assert decision.veto is None
    assert decision.rule == "every_pair_nvlink"
    assert decision.set["GGML_CUDA_P2P"] == "1"
    assert decision.set["CUDA_VISIBLE_DEVICES"] == "0,1"
    assert decision.selection == (0, 1)
    assert decision.document["schema"] == "peergate.gate/v1"
    assert str(decision).startswith("P2P allowed on GPUs 0,1 (every_pair_nvlink): ")
    assert "GGML_CUDA_P2P=1" in str(decision)


def test_a_sys_pair_is_vetoed_naming_it(bridged):
    decision = peergate.gate(gpus=[0, 2], env=bridged)
    assert not decision.allowed
    assert "GPU 0" in decision.veto and "GPU 2" in decision.veto and "SYS" in decision.veto
    assert "GGML_CUDA_P2P" not in decision.set
    assert str(decision).startswith("P2P vetoed on GPUs 0,2")


def test_the_environment_defaults_to_os_environ(monkeypatch):
    monkeypatch.setenv("PEERGATE_SIMULATE", "bridged-a100-4x")
    assert peergate.gate(gpus="2,3").allowed
    assert not peergate.gate(gpus="all").allowed


def test_gpus_all_and_the_inherited_mask(bridged):
    assert peergate.gate(gpus="all", env=bridged).selection == (0, 1, 2, 3)
    inherited = peergate.gate(env=dict(bridged, CUDA_VISIBLE_DEVICES="2,3"))
    assert inherited.selection == (2, 3) and inherited.allowed


def test_a_gpu_the_host_lacks_is_an_error_as_for_the_command(bridged):
    # `peergate gate --gpus 0,9` is a usage error (exit 2): so is the package's (issue 52).
    with pytest.raises(peergate.PeergateError,
                       match=r"GPU 9 is not on this host \(its GPUs: 0, 1, 2, 3\)"):
        peergate.gate(gpus=[0, 9], env=bridged)


def test_a_usable_node_says_so(bridged):
    decision = peergate.gate(gpus=[0, 2], env=bridged)
    assert decision.node_usable and decision.node_reason is None


def test_a_node_where_no_cuda_program_can_start_is_not_usable():
    # An NVSwitch board whose fabric manager has not registered the GPUs: cuInit answers 802,
    # and `peergate gate` exits 3 (issue 52).
    fixture = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests",
                           "fixtures", "machines", "fabric-in-progress-8x.json")
    decision = peergate.gate(gpus=[0, 1], env=simulated(fixture))
    assert not decision.allowed and not decision.node_usable
    assert "CUDA_ERROR_SYSTEM_NOT_READY" in decision.node_reason


def test_profiles_decide_their_own_variables(bridged):
    nccl = peergate.gate(gpus=[0, 2], profile="nccl", env=bridged)
    assert nccl.set.get("NCCL_P2P_LEVEL") == "NVL"
    assert nccl.profile == "nccl"


def test_place_picks_the_best_gpus(bridged):
    decision = peergate.gate(place=2, gpus="1,2,3", env=bridged)
    assert decision.selection == (2, 3)
    assert decision.allowed


@pytest.mark.parametrize("gpus, profile", [("x", "llama.cpp"), ([0, 1], "tensorrt"), ("0,,1", "nccl")])
def test_bad_input_is_a_peergate_error_with_the_librarys_message(bridged, gpus, profile):
    with pytest.raises(peergate.PeergateError) as raised:
        peergate.gate(gpus=gpus, profile=profile, env=bridged)
    assert raised.value.message
    assert raised.value.document["schema"] == "peergate.gate/v1"


@pytest.mark.parametrize("gpus", [[True], [0, "1"], [0.5]])
def test_a_list_that_is_not_indices_is_refused_before_the_library(bridged, gpus):
    with pytest.raises(peergate.PeergateError, match="nvidia-smi indices"):
        peergate.gate(gpus=gpus, env=bridged)


def test_apply_removes_an_off_valued_ggml_cuda_p2p(bridged):
    env = dict(bridged, GGML_CUDA_P2P="0", MY_SETTING="kept")
    decision = peergate.apply(env, gpus=[0, 1])
    assert not decision.allowed
    assert "GGML_CUDA_P2P" not in env, "llama.cpp turns P2P on for any value, '0' included"
    assert env["MY_SETTING"] == "kept"
    assert decision.unset == ("GGML_CUDA_P2P",)


def test_apply_sets_only_what_the_plan_sets(bridged):
    env = dict(bridged, HOME="/home/user")
    before = dict(env)
    decision = peergate.apply(env, gpus=[0, 1])
    assert {k: v for k, v in env.items() if k not in decision.set} == before
    assert env["GGML_CUDA_P2P"] == "1"


def test_apply_defaults_to_os_environ(monkeypatch):
    monkeypatch.setenv("PEERGATE_SIMULATE", "bridged-a100-4x")
    monkeypatch.setenv("GGML_CUDA_P2P", "off")
    # apply() sets these in os.environ: monkeypatch restores them after the test, so that
    # the later tests' CUDA driver, loaded into this process, sees no mask of this one's.
    for name in ("CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER"):
        monkeypatch.delenv(name, raising=False)
    peergate.apply(gpus=[0, 2])
    assert "GGML_CUDA_P2P" not in os.environ
    assert os.environ["CUDA_VISIBLE_DEVICES"] == "0,2"


def test_a_vetoed_apply_on_vllm_says_what_to_disable():
    env = simulated("bridged-a100-4x")
    decision = peergate.apply(env, gpus=[0, 2], profile="vllm")
    assert not decision.allowed
    assert all(env[k] == v for k, v in decision.set.items())
