// SPDX-License-Identifier: Apache-2.0
#include "report/exports/facts.hpp"

#include <algorithm>

namespace peergate::report::exports {

namespace {

// Where sysfs put each GPU, for the NICs' paths to it; nullopt where its ports were not read.
std::vector<std::optional<policy::placement::PciPlace>> gpu_places(
    const ExportFacts& facts, const std::vector<model::Gpu>& gpus) {
    std::vector<std::optional<policy::placement::PciPlace>> out;
    for (const auto& gpu : gpus) {
        const auto ports = facts.doctor.ports.find(gpu.index);
        if (!gpu.pci || ports == facts.doctor.ports.end()) {
            out.emplace_back();
            continue;
        }
        const auto read = facts.doctor.pci.find(*gpu.pci);
        out.push_back(policy::placement::PciPlace{
            .path = {.device = *gpu.pci, .ports = ports->second},
            .numa_node =
                read == facts.doctor.pci.end() ? std::nullopt : read->second.named_numa_node()});
    }
    return out;
}

}  // namespace

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

const policy::doctor::PairLayers* pair_layers(const ExportFacts& facts, int src, int dst) {
    for (const auto& layers : facts.doctor.pairs) {
        if (layers.src == src && layers.dst == dst) {
            return &layers;
        }
    }
    return nullptr;
}

bool healthy(const ExportFacts& facts) {
    return facts.report.verdict == policy::doctor::Verdict::healthy;
}

const policy::doctor::GpuLinks* gpu_links(const ExportFacts& facts, int gpu) {
    const auto& links = facts.doctor.links;
    const auto found = std::find_if(
        links.begin(), links.end(), [gpu](const auto& walk) { return walk.gpu == gpu; });
    return found == links.end() ? nullptr : &*found;
}

const policy::doctor::NodeVerdict& node_verdict(const ExportFacts& facts) {
    return facts.assessment.node;
}

policy::placement::NicAffinity examined_nic_affinity(const ExportFacts& facts,
                                                     const std::vector<model::Gpu>& gpus) {
    return policy::placement::nic_affinity(gpu_places(facts, gpus), facts.doctor.nics);
}

}  // namespace peergate::report::exports
