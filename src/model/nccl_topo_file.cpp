// SPDX-License-Identifier: Apache-2.0
#include "model/nccl_topo_file.hpp"

#include <algorithm>

namespace peergate::model {

bool NcclTopoFile::claims_nvlink(const PciAddress& a, const PciAddress& b) const {
    const auto find = [&](const PciAddress& bus) {
        return std::find_if(
            gpus.begin(), gpus.end(), [&](const NcclTopoGpu& gpu) { return gpu.bus == bus; });
    };
    const auto lists = [](const NcclTopoGpu& gpu, const PciAddress& peer) {
        return std::find(gpu.peers.begin(), gpu.peers.end(), peer) != gpu.peers.end();
    };
    const auto first = find(a);
    const auto second = find(b);
    if (first != gpus.end() && lists(*first, b)) {
        return true;
    }
    if (second != gpus.end() && lists(*second, a)) {
        return true;
    }
    return first != gpus.end() && second != gpus.end() && first->to_switch && second->to_switch;
}

std::vector<std::pair<int, int>> NcclTopoFile::false_nvlink_claims(
    const Topology& topology, const std::vector<int>& ids) const {
    std::vector<std::pair<int, int>> out;
    if (!unreadable.empty() || !malformed.empty()) {
        return out;
    }
    for (std::size_t i = 0; i < ids.size(); ++i) {
        for (std::size_t j = i + 1; j < ids.size(); ++j) {
            const auto label = topology.label(ids[i], ids[j]);
            const Gpu* a = find_gpu(topology.gpus, ids[i]);
            const Gpu* b = find_gpu(topology.gpus, ids[j]);
            if (label && !label->is_nvlink() && a != nullptr && b != nullptr && a->pci && b->pci &&
                claims_nvlink(*a->pci, *b->pci)) {
                out.emplace_back(std::min(ids[i], ids[j]), std::max(ids[i], ids[j]));
            }
        }
    }
    return out;
}

}  // namespace peergate::model
