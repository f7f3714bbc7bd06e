// SPDX-License-Identifier: Apache-2.0
#include "model/nccl_log.hpp"

#include <array>

namespace peergate::model {

std::string_view to_string(NcclTransport transport) {
    switch (transport) {
        case NcclTransport::p2p:
            return "P2P";
        case NcclTransport::shm:
            return "SHM";
        case NcclTransport::net:
            return "NET";
        case NcclTransport::collnet:
            return "COLLNET";
        case NcclTransport::nvls:
            return "NVLS";
    }
    return "P2P";
}

std::string_view to_string(NcclDirection direction) {
    switch (direction) {
        case NcclDirection::none:
            return "";
        case NcclDirection::send:
            return "send";
        case NcclDirection::receive:
            return "receive";
    }
    return "";
}

bool NcclHostTopology::nvlinked(const std::string& a, const std::string& b) const {
    if (nvlinks.contains(a < b ? std::pair{a, b} : std::pair{b, a})) {
        return true;
    }
    for (const auto& [name, members] : nvswitches) {
        if (members.contains(a) && members.contains(b)) {
            return true;
        }
    }
    return false;
}

std::optional<int> nccl_path_rank(std::string_view type) {
    // The order of NCCL's PATH_* constants (graph/topo.h), as printed in graph lines.
    static constexpr std::array<std::string_view, 10> kOrder = {
        "LOC", "NVL", "NVB", "C2C", "PIX", "PXB", "PXN", "PHB", "SYS", "NET"};
    for (std::size_t i = 0; i < kOrder.size(); ++i) {
        if (kOrder[i] == type) {
            return static_cast<int>(i);
        }
    }
    return std::nullopt;
}

std::string to_text(const NcclGdrLine& line) {
    std::string out = line.net.empty() ? "" : "NET/" + line.net + " : ";
    out += "GPU Direct RDMA ";
    out += line.via.empty() ? "" : "(" + line.via + ") ";
    out += line.enabled ? "Enabled for " : "Disabled for ";
    out += line.gpu.empty() ? "" : "GPU " + line.gpu + " / ";
    out += "HCA " + line.hca;
    if (line.distance && line.limit) {
        out += " (distance " + std::to_string(*line.distance) + " " + line.comparison + " " +
               std::to_string(*line.limit) + ")";
    }
    return line.reason.empty() ? out : out + " (" + line.reason + ")";
}

}  // namespace peergate::model
