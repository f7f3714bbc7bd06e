# SPDX-License-Identifier: Apache-2.0
"""The values the package returns, read from the library's JSON documents
(peergate.gate/v1, peergate.topology/v1, peergate.placement/v1; docs/contracts.md)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, Mapping, Optional, Tuple


@dataclass(frozen=True)
class Decision:
    """May P2P flow for this launch, and what the child's environment must hold.

    >>> d = peergate.gate(gpus=[0, 1])
    >>> d.allowed, d.set
    (True, {'GGML_CUDA_P2P': '1'})
    """

    allowed: bool
    veto: Optional[str]  # None when allowed; names the pair and its label, or the switch
    rule: str  # the rule that decided (docs/gate-rules.md), e.g. "every_pair_nvlink"
    reason: str
    set: Mapping[str, str]  # variables to set, in the order decided
    unset: Tuple[str, ...]  # variables to remove (an off-valued GGML_CUDA_P2P among them)
    kept: Mapping[str, str]  # values the caller set and peergate left alone
    warnings: Tuple[str, ...]
    selection: Tuple[int, ...]  # the nvidia-smi indices gated
    profile: str
    document: Dict[str, Any] = field(repr=False, compare=False)  # the peergate.gate/v1 document
    # False where no CUDA program can start on this node (`peergate gate` exits 3, `peergate
    # exec` starts nothing); node_reason then says why and what to do.
    node_usable: bool = True
    node_reason: Optional[str] = None

    @classmethod
    def from_document(cls, doc: Dict[str, Any]) -> "Decision":
        return cls(allowed=bool(doc["p2p"]), veto=doc.get("veto"), rule=doc.get("rule", ""),
                   reason=doc.get("reason", ""), set=dict(doc.get("set", {})),
                   unset=tuple(doc.get("unset", [])), kept=dict(doc.get("kept", {})),
                   warnings=tuple(doc.get("warnings", [])),
                   selection=tuple(doc.get("selection", [])), profile=doc.get("profile", ""),
                   document=doc, node_usable=bool(doc.get("node_usable", True)),
                   node_reason=doc.get("node_reason"))

    def __str__(self) -> str:
        gpus = ",".join(str(i) for i in self.selection) or "none"
        if self.allowed:
            plan = " ".join(f"{k}={v}" for k, v in self.set.items()) or "nothing to set"
            return f"P2P allowed on GPUs {gpus} ({self.rule}): {plan}"
        return f"P2P vetoed on GPUs {gpus} ({self.rule}): {self.veto}"


@dataclass(frozen=True)
class Topology:
    """The interconnect matrix, as `peergate topo --json` gives it.

    >>> t = peergate.topology()
    >>> t.label(0, 1), t.nvlink_islands
    ('NV12', ((0, 1), (2, 3)))
    """

    source: str  # the tier that answered: "nvml", "nvidia-smi", "simulated" ...
    gpus: Tuple[Dict[str, Any], ...]  # index, name, pci_bus_id, uuid, numa_node, cpu_affinity
    matrix: Tuple[Tuple[str, ...], ...]  # labels in "gpus" order: "X", "NV12", "PIX", "SYS" ...
    nvlink_islands: Tuple[Tuple[int, ...], ...]
    document: Dict[str, Any] = field(repr=False, compare=False)

    @classmethod
    def from_document(cls, doc: Dict[str, Any]) -> "Topology":
        return cls(source=doc["source"], gpus=tuple(doc["gpus"]),
                   matrix=tuple(tuple(row) for row in doc["matrix"]),
                   nvlink_islands=tuple(tuple(i) for i in doc["nvlink_islands"]), document=doc)

    def label(self, gpu: int, peer: int) -> str:
        """The link label between two GPUs, by nvidia-smi index."""
        order = [g["index"] for g in self.gpus]
        return self.matrix[order.index(gpu)][order.index(peer)]


@dataclass(frozen=True)
class Group:
    """One placed group: its GPUs, its weakest link and how to launch on it."""

    gpus: Tuple[int, ...]
    bottleneck: Optional[str]  # the weakest link's label; None for one GPU
    numa_nodes: Tuple[int, ...]
    cuda_visible_devices: str
    launch_env: Mapping[str, str]  # what to set for a launch on it: CUDA_VISIBLE_DEVICES ...
    document: Dict[str, Any] = field(repr=False, compare=False)

    @classmethod
    def from_document(cls, doc: Dict[str, Any]) -> "Group":
        # The document's launch.env is a shell prefix, "NAME=value NAME=value".
        env = dict(item.split("=", 1) for item in doc["launch"]["env"].split() if "=" in item)
        return cls(gpus=tuple(doc["gpus"]), bottleneck=doc.get("bottleneck"),
                   numa_nodes=tuple(doc.get("numa_nodes") or ()),
                   cuda_visible_devices=doc["cuda_visible_devices"], launch_env=env,
                   document=doc)


@dataclass(frozen=True)
class Placement:
    """The best groups of K GPUs, as `peergate place --json` finds them.

    >>> p = peergate.place(2)
    >>> [g.gpus for g in p.groups]
    [(0, 1), (2, 3)]
    """

    size: int
    groups: Tuple[Group, ...]
    leftover: Tuple[int, ...]
    exact: bool  # proven best, not only the best found
    document: Dict[str, Any] = field(repr=False, compare=False)

    @classmethod
    def from_document(cls, doc: Dict[str, Any]) -> "Placement":
        return cls(size=doc["size"], groups=tuple(Group.from_document(g) for g in doc["groups"]),
                   leftover=tuple(doc.get("leftover", [])), exact=bool(doc["exact"]), document=doc)
