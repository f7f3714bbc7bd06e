// SPDX-License-Identifier: Apache-2.0
// The path between two GPUs, as the nvidia-smi topo -m legend names it.
#pragma once

#include <compare>
#include <optional>
#include <string>
#include <string_view>

namespace peergate::model {

// Path classes, closest first. Rules compare them (`kind <= LinkKind::pix`).
enum class LinkKind {
    self,     // X: the diagonal
    nvlink,   // NV#: a bonded set of # NVLinks (direct or through NVSwitch)
    pix,      // at most a single PCIe bridge
    pxb,      // multiple PCIe bridges, no host bridge
    phb,      // a PCIe host bridge (typically the CPU)
    node,     // host bridges within one NUMA node
    sys,      // across the SMP interconnect between NUMA nodes (QPI/UPI/xGMI); old drivers: SOC
    unknown,  // not reported or not readable: never treated as a path
};

struct LinkLabel {
    LinkKind kind = LinkKind::unknown;
    int nvlinks = 0;  // link count for kind == nvlink, else 0

    static LinkLabel self() { return {LinkKind::self, 0}; }

    static LinkLabel nvlink(int count) { return {LinkKind::nvlink, count}; }

    static LinkLabel of(LinkKind kind) { return {kind, 0}; }

    // Parses a legend token: X, NV<n> (n >= 1), PIX, PXB, PHB, NODE, SYS, and the older
    // SOC (= SYS). Case-sensitive, as nvidia-smi prints them. nullopt for anything else.
    static std::optional<LinkLabel> parse(std::string_view token);

    // The legend token; "unknown" for kind unknown.
    std::string to_token() const;

    bool is_nvlink() const { return kind == LinkKind::nvlink; }

    // Best first: X < NV18 < NV12 < NV1 < PIX < PXB < PHB < NODE < SYS < unknown.
    friend std::strong_ordering operator<=>(const LinkLabel& a, const LinkLabel& b);
    friend bool operator==(const LinkLabel&, const LinkLabel&) = default;
};

}  // namespace peergate::model
