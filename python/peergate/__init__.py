# SPDX-License-Identifier: Apache-2.0
"""peergate: may GPU peer-to-peer traffic flow for this launch, and where should it go.

Over libpeergate.so (found as docs/python.md says), with no third-party dependency:

    import peergate
    decision = peergate.apply(gpus=[0, 1])   # os.environ now holds what the child needs
    if not decision.allowed:
        print("P2P stays off:", decision.veto)

Every function reads the host as the `peergate` command does (NVML, else nvidia-smi; /sys
and /proc), honouring PEERGATE_SIMULATE, PEERGATE_NVML_LIB, PEERGATE_NVIDIA_SMI and
PEERGATE_HOST_ROOT in the environment it is given.
"""
from __future__ import annotations

import os
from typing import Iterable, Mapping, MutableMapping, Optional, Union

from ._documents import Decision, Group, Placement, Topology
from ._errors import PeergateError
from ._library import call_json, environment_block, library

__all__ = ["Decision", "Group", "PeergateError", "Placement", "Topology", "apply", "gate",
           "library_path", "place", "topology"]
__version__ = "0.1.0"

Gpus = Union[None, str, Iterable[int]]
PROFILES = ("llama.cpp", "nccl", "vllm", "sglang", "all")


def _gpu_text(gpus: Gpus) -> Optional[str]:
    """None, "all", "0,1" or [0, 1] as the C API's text; bools and negatives are refused."""
    if gpus is None or isinstance(gpus, str):
        return gpus
    ids = list(gpus)
    if not all(isinstance(i, int) and not isinstance(i, bool) for i in ids):
        raise PeergateError(f"gpus: expected nvidia-smi indices (ints), got {ids!r}")
    return ",".join(str(i) for i in ids)


def _environment(env: Optional[Mapping[str, str]]):
    return environment_block(os.environ if env is None else env)


def _raise_on_error(status: int, doc: dict) -> None:
    if status == 2 and "error" in doc:
        raise PeergateError(doc["error"], doc)


def gate(gpus: Gpus = None, profile: str = "llama.cpp", env: Optional[Mapping[str, str]] = None,
         place: Optional[int] = None) -> Decision:
    """Decides whether P2P may flow for a launch on these GPUs, as `peergate gate` does.

    gpus: nvidia-smi indices ([0, 1] or "0,1"), "all", or None (what an inherited
    CUDA_VISIBLE_DEVICES in env exposes, else every GPU). env: the environment the child
    would inherit (default os.environ; not changed). place: choose the best `place` GPUs
    among gpus instead, as `peergate gate --place K`. Raises PeergateError for a bad list
    (a GPU the host does not have included), profile or placement. Where no CUDA program can
    start on this node, the decision's node_usable is False (`peergate gate` exits 3).

    >>> peergate.gate(gpus=[0, 2], env={"PEERGATE_SIMULATE": "bridged-a100-4x"}).veto
    'GPU 0 to GPU 2 is SYS, not NVLink'
    """
    if place is None:
        status, doc = call_json("peergate_gate_json", _environment(env), _gpu_text(gpus), profile)
    else:
        status, doc = call_json("peergate_gate_place_json", _environment(env), _gpu_text(gpus),
                                int(place), profile)
    _raise_on_error(status, doc)
    return Decision.from_document(doc)


def apply(env: Optional[MutableMapping[str, str]] = None, gpus: Gpus = None,
          profile: str = "llama.cpp", place: Optional[int] = None) -> Decision:
    """Decides as gate() and applies the plan to env in place (default os.environ), as
    `peergate exec` does: removes what the plan unsets (an off-valued GGML_CUDA_P2P, which
    llama.cpp would read as on) and sets only what it sets; every other variable stays.

    >>> d = peergate.apply(gpus=[0, 1], profile="vllm")   # before `import vllm`
    """
    target = os.environ if env is None else env
    decision = gate(gpus=gpus, profile=profile, env=target, place=place)
    for name in decision.unset:
        target.pop(name, None)
    for name, value in decision.set.items():
        target[name] = value
    return decision


def topology(env: Optional[Mapping[str, str]] = None) -> Topology:
    """The host's GPUs and interconnect matrix, as `peergate topo --json`. Raises
    PeergateError when no matrix can be read (the reason says which tier failed how).

    >>> peergate.topology().label(0, 1)
    'NV12'
    """
    status, doc = call_json("peergate_topology_json", _environment(env))
    _raise_on_error(status, doc)
    if not doc.get("readable", False):
        raise PeergateError(f"topology unreadable: {doc.get('reason')}", doc)
    return Topology.from_document(doc)


def place(size: int, count: Optional[int] = None, gpus: Gpus = None,
          env: Optional[Mapping[str, str]] = None, profile: str = "all") -> Placement:
    """The best `count` groups of `size` GPUs among gpus (default: every GPU; count default:
    as many as fit), as `peergate place --json`. Raises PeergateError when they cannot be
    placed.

    >>> [g.gpus for g in peergate.place(2).groups]
    [(0, 1), (2, 3)]
    """
    if count is not None and count < 1:
        raise PeergateError(f"count: at least one group, got {count}")
    status, doc = call_json("peergate_place_json", _environment(env), _gpu_text(gpus), int(size),
                            0 if count is None else int(count), profile)
    _raise_on_error(status, doc)
    return Placement.from_document(doc)


def library_path() -> str:
    """Where the libpeergate.so.N in use was found."""
    return library()[1]
