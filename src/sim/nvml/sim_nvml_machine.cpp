// SPDX-License-Identifier: Apache-2.0
#include "sim/nvml/sim_nvml_machine.hpp"

#include <algorithm>
#include <map>

#include "sources/nvml/nvml_abi.hpp"
#include "util/strings.hpp"

namespace peergate::sim::nvml {

namespace {

std::vector<SimLink> derived_links(const MachineFile& file, std::size_t p) {
    std::vector<SimLink> links;
    const auto& row = file.matrix[p];
    if (file.nvswitch) {
        int widest = 0;
        for (const auto& label : row) {
            widest = label.is_nvlink() ? std::max(widest, label.nvlinks) : widest;
        }
        links.assign(static_cast<std::size_t>(widest), SimLink{true, true, default_switch_pci()});
        return links;
    }
    for (std::size_t q = 0; q < row.size(); ++q) {
        for (int k = 0; row[q].is_nvlink() && k < row[q].nvlinks; ++k) {
            links.push_back(SimLink{true, false, file.gpus[q].pci});
        }
    }
    return links;
}

std::vector<SimLink> explicit_links(const MachineGpu& gpu) {
    std::vector<SimLink> links;
    for (const auto& link : gpu.nvlinks) {
        const auto slot = static_cast<std::size_t>(std::max(0, link.link));
        if (links.size() <= slot) {
            links.resize(slot + 1, SimLink{false, false, {}});
        }
        const bool to_switch = link.remote_type == "switch";
        links[slot] = SimLink{link.active, to_switch,
                              link.remote_pci.value_or(to_switch ? default_switch_pci() : model::PciAddress{})};
    }
    return links;
}

int status_token(const std::string& token) {
    static const std::map<std::string, int> kStatus{
        {"OK", NVML_P2P_STATUS_OK},
        {"CNS", NVML_P2P_STATUS_CHIPSET_NOT_SUPPORED},
        {"GNS", NVML_P2P_STATUS_GPU_NOT_SUPPORTED},
        {"TNS", NVML_P2P_STATUS_IOH_TOPOLOGY_NOT_SUPPORTED},
        {"DR", NVML_P2P_STATUS_DISABLED_BY_REGKEY},
        {"NS", NVML_P2P_STATUS_NOT_SUPPORTED},
        {"U", NVML_P2P_STATUS_UNKNOWN},
        {"X", NVML_P2P_STATUS_NOT_SUPPORTED}};
    const auto it = kStatus.find(token);
    return it == kStatus.end() ? NVML_P2P_STATUS_UNKNOWN : it->second;
}

}  // namespace

model::PciAddress default_switch_pci() { return model::PciAddress{0, 0xC0, 0, 0}; }

SimMachine derive_machine(MachineFile file) {
    SimMachine machine;
    for (std::size_t p = 0; p < file.gpus.size(); ++p) {
        SimGpu gpu{.gpu = file.gpus[p], .links = {}};
        gpu.links = file.gpus[p].nvlinks.empty() ? derived_links(file, p) : explicit_links(file.gpus[p]);
        const auto slots = static_cast<std::size_t>(std::max(0, file.gpus[p].nvlink_slots));
        if (gpu.links.size() < slots) {
            gpu.links.resize(slots, SimLink{false, false, {}});
        }
        machine.gpus.push_back(std::move(gpu));
    }
    machine.file = std::move(file);
    return machine;
}

int p2p_status(const SimMachine& machine, int caps, std::size_t p, std::size_t q) {
    const auto& file = machine.file;
    const auto* given = caps == NVML_P2P_CAPS_INDEX_NVLINK ? &file.nvml_p2p_nvlink
                        : caps == NVML_P2P_CAPS_INDEX_READ ? &file.nvml_p2p_read
                        : caps == NVML_P2P_CAPS_INDEX_WRITE ? &file.nvml_p2p_write
                                                            : nullptr;
    if (given != nullptr && !given->empty()) {
        return status_token((*given)[p][q]);
    }
    if (p == q) {
        return NVML_P2P_STATUS_NOT_SUPPORTED;
    }
    const bool nvlinked = file.matrix[p][q].is_nvlink();
    if (caps == NVML_P2P_CAPS_INDEX_READ || caps == NVML_P2P_CAPS_INDEX_WRITE) {
        return NVML_P2P_STATUS_OK;
    }
    return nvlinked ? NVML_P2P_STATUS_OK : NVML_P2P_STATUS_NOT_SUPPORTED;
}

int ancestor_level(const SimMachine& machine, std::size_t p, std::size_t q) {
    using model::LinkKind;
    const auto& label = machine.file.matrix[p][q];
    switch (label.kind) {
        case LinkKind::self: return NVML_TOPOLOGY_INTERNAL;
        case LinkKind::pix: return NVML_TOPOLOGY_SINGLE;
        case LinkKind::pxb: return NVML_TOPOLOGY_MULTIPLE;
        case LinkKind::phb: return NVML_TOPOLOGY_HOSTBRIDGE;
        case LinkKind::node: return NVML_TOPOLOGY_NODE;
        case LinkKind::sys: return NVML_TOPOLOGY_SYSTEM;
        default: break;
    }
    const auto& a = machine.file.gpus[p].numa_node;
    const auto& b = machine.file.gpus[q].numa_node;
    return a && b && *a == *b ? NVML_TOPOLOGY_NODE : NVML_TOPOLOGY_SYSTEM;
}

std::vector<std::uint64_t> cpu_words(const std::string& list, unsigned words) {
    std::vector<std::uint64_t> out(words, 0);
    auto set = [&](unsigned cpu) {
        if (cpu / 64 < words) {
            out[cpu / 64] |= std::uint64_t{1} << (cpu % 64);
        }
    };
    for (const auto part : util::split(list, ',')) {
        const auto dash = part.find('-');
        const auto first = util::parse_int<unsigned>(util::trim(part.substr(0, dash)));
        const auto last = dash == std::string_view::npos
                              ? first
                              : util::parse_int<unsigned>(util::trim(part.substr(dash + 1)));
        if (!first || !last) {
            continue;  // a malformed entry adds no CPU
        }
        for (unsigned cpu = *first; cpu <= *last && cpu < 64U * words; ++cpu) {
            set(cpu);
        }
    }
    return out;
}

}  // namespace peergate::sim::nvml
