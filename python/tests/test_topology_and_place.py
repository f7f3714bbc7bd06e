# SPDX-License-Identifier: Apache-2.0
"""peergate.topology and peergate.place on simulated machines."""
import peergate
import pytest
from conftest import simulated


def test_the_topology_is_topo_json(bridged):
    topology = peergate.topology(env=bridged)
    assert topology.document["schema"] == "peergate.topology/v1"
    assert [g["index"] for g in topology.gpus] == [0, 1, 2, 3]
    assert topology.nvlink_islands == ((0, 1), (2, 3))
    assert topology.label(0, 1).startswith("NV")
    assert topology.label(0, 2) == "SYS"
    assert topology.label(3, 3) == "X"


def test_an_nvswitch_board_is_one_island():
    topology = peergate.topology(env=simulated("hgx-b200-8x"))
    assert topology.nvlink_islands == (tuple(range(8)),)


def test_an_unreadable_topology_says_which_tier_failed_how():
    env = {"PATH": "/usr/bin:/bin", "PEERGATE_NVML_LIB": "/nonexistent/libnvidia-ml.so.1",
           "PEERGATE_NVIDIA_SMI": "/nonexistent/nvidia-smi"}
    with pytest.raises(peergate.PeergateError, match="topology unreadable") as raised:
        peergate.topology(env=env)
    assert "nvidia-smi" in raised.value.message
    assert raised.value.document["readable"] is False


def test_an_unknown_simulated_machine_is_an_error():
    with pytest.raises(peergate.PeergateError, match="no-such-machine"):
        peergate.topology(env=simulated("no-such-machine"))


def test_place_finds_the_nvlinked_pairs(bridged):
    placement = peergate.place(2, env=bridged)
    assert [g.gpus for g in placement.groups] == [(0, 1), (2, 3)]
    assert placement.groups[0].bottleneck.startswith("NV")
    assert placement.groups[0].cuda_visible_devices == "0,1"
    assert placement.groups[0].launch_env["CUDA_VISIBLE_DEVICES"] == "0,1"
    assert placement.exact
    assert placement.document["schema"] == "peergate.placement/v1"


def test_place_among_candidates_and_a_count(bridged):
    placement = peergate.place(2, count=1, gpus=[1, 2, 3], env=bridged)
    assert [g.gpus for g in placement.groups] == [(2, 3)]
    assert placement.leftover == (1,)


@pytest.mark.parametrize("size, count, gpus", [(3, None, [0, 1]), (0, None, None), (2, 0, None),
                                               (2, 1, "0,9")])
def test_a_placement_that_cannot_be_made_is_a_peergate_error(bridged, size, count, gpus):
    with pytest.raises(peergate.PeergateError):
        peergate.place(size, count=count, gpus=gpus, env=bridged)
