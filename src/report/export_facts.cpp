// SPDX-License-Identifier: Apache-2.0
#include "report/export_facts.hpp"

#include <algorithm>

namespace peergate::report {

std::vector<model::Gpu> examined_gpus(const ExportFacts& facts) {
    std::vector<model::Gpu> out;
    const model::Topology* topology = facts.doctor.discovery.described();
    if (topology == nullptr) {
        return out;
    }
    const auto& selection = facts.doctor.selection;
    for (const auto& gpu : topology->gpus) {
        if (selection.empty() ||
            std::find(selection.begin(), selection.end(), gpu.index) != selection.end()) {
            out.push_back(gpu);
        }
    }
    std::sort(
        out.begin(), out.end(), [](const auto& a, const auto& b) { return a.index < b.index; });
    return out;
}

int nvlinks_between(const model::Topology& topology, int a, int b) {
    const auto label = topology.label(a, b);
    return label && label->is_nvlink() ? label->nvlinks : 0;
}

const policy::PairLayers* pair_layers(const ExportFacts& facts, int src, int dst) {
    for (const auto& layers : facts.doctor.pairs) {
        if (layers.src == src && layers.dst == dst) {
            return &layers;
        }
    }
    return nullptr;
}

bool healthy(const ExportFacts& facts) {
    return facts.report.verdict == policy::Verdict::healthy;
}

}  // namespace peergate::report
