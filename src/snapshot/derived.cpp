// SPDX-License-Identifier: Apache-2.0
#include "snapshot/derived.hpp"

#include <algorithm>
#include <array>
#include <utility>

namespace peergate::snapshot {

namespace {

const std::vector<std::vector<std::string>>& explicit_statuses(const MachineFile& m, P2pCaps caps) {
    switch (caps) {
        case P2pCaps::read:
            return m.nvml_p2p_read;
        case P2pCaps::write:
            return m.nvml_p2p_write;
        case P2pCaps::nvlink:
            return m.nvml_p2p_nvlink;
        case P2pCaps::atomics:
            return m.nvml_p2p_atomics;
        case P2pCaps::prop:
            return m.nvml_p2p_prop;
    }
    return m.nvml_p2p_read;
}

bool linked(const MachineFile& m, std::size_t p, std::size_t q) {
    return p < m.matrix.size() && q < m.matrix[p].size() && m.matrix[p][q].is_nvlink();
}

int largest_nvlink_count(const MachineFile& m, std::size_t p) {
    int largest = 0;
    for (std::size_t q = 0; p < m.matrix.size() && q < m.matrix[p].size(); ++q) {
        if (q != p && m.matrix[p][q].is_nvlink()) {
            largest = std::max(largest, m.matrix[p][q].nvlinks);
        }
    }
    return largest;
}

std::vector<MachineNvlink> switch_links(const MachineFile& m, std::size_t p) {
    const auto switches = nvswitch_addresses(m);
    std::vector<MachineNvlink> links;
    const int count = largest_nvlink_count(m, p);
    for (int k = 0; k < count && !switches.empty(); ++k) {
        links.push_back(
            MachineNvlink{.link = k,
                          .active = true,
                          .remote_type = "switch",
                          .remote_pci = switches[static_cast<std::size_t>(k) % switches.size()]});
    }
    return links;
}

std::vector<MachineNvlink> direct_links(const MachineFile& m, std::size_t p) {
    std::vector<MachineNvlink> links;
    int next = 0;
    for (std::size_t q = 0; q < m.gpus.size(); ++q) {
        if (q == p || !linked(m, p, q)) {
            continue;
        }
        for (int k = 0; k < m.matrix[p][q].nvlinks; ++k) {
            links.push_back(MachineNvlink{
                .link = next++, .active = true, .remote_type = "gpu", .remote_pci = m.gpus[q].pci});
        }
    }
    return links;
}

}  // namespace

bool p2p_caps_from_letter(char letter, P2pCaps& caps) {
    static constexpr std::array<std::pair<char, P2pCaps>, 5> kLetters{{{'r', P2pCaps::read},
                                                                       {'w', P2pCaps::write},
                                                                       {'n', P2pCaps::nvlink},
                                                                       {'a', P2pCaps::atomics},
                                                                       {'p', P2pCaps::prop}}};
    for (const auto& [known, value] : kLetters) {
        if (known == letter) {
            caps = value;
            return true;
        }
    }
    return false;
}

model::Topology machine_topology(const MachineFile& machine) {
    model::Topology topology;
    for (const auto& gpu : machine.gpus) {
        topology.gpus.push_back(model::Gpu{.index = gpu.index,
                                           .name = gpu.name,
                                           .pci = gpu.pci,
                                           .uuid = gpu.uuid,
                                           .numa_node = gpu.numa_node,
                                           .cpu_affinity = gpu.cpu_affinity});
    }
    topology.matrix = machine.matrix;
    topology.source = model::TopologySource::simulated;
    topology.provenance = "machine file " + machine.name;
    return topology;
}

std::string p2p_status_token(const MachineFile& machine,
                             P2pCaps caps,
                             std::size_t p,
                             std::size_t q) {
    if (p == q) {
        return "X";
    }
    const auto& given = explicit_statuses(machine, caps);
    if (p < given.size() && q < given[p].size()) {
        return given[p][q];
    }
    const bool nvlink_only = caps == P2pCaps::nvlink || caps == P2pCaps::atomics;
    return !nvlink_only || linked(machine, p, q) ? "OK" : "NS";
}

std::vector<std::vector<std::string>> p2p_status_matrix(const MachineFile& machine, P2pCaps caps) {
    std::vector<std::vector<std::string>> out(machine.gpus.size());
    for (std::size_t p = 0; p < machine.gpus.size(); ++p) {
        for (std::size_t q = 0; q < machine.gpus.size(); ++q) {
            out[p].push_back(p2p_status_token(machine, caps, p, q));
        }
    }
    return out;
}

int p2p_status_code(const std::string& token) {
    static constexpr std::array<std::pair<const char*, int>, 7> kCodes{
        {{"OK", 0}, {"CNS", 1}, {"GNS", 2}, {"TNS", 3}, {"DR", 4}, {"NS", 5}, {"U", 6}}};
    for (const auto& [name, code] : kCodes) {
        if (token == name) {
            return code;
        }
    }
    return 5;
}

std::vector<model::PciAddress> nvswitch_addresses(const MachineFile& machine) {
    if (!machine.nvswitch_pci.empty()) {
        return machine.nvswitch_pci;
    }
    std::vector<model::PciAddress> out;
    // Synthetic: four switches from bus C0 up, skipping buses the GPUs use.
    for (unsigned bus = 0xC0; machine.nvswitch && out.size() < 4 && bus <= 0xFF; ++bus) {
        const model::PciAddress pci{
            .domain = 0, .bus = static_cast<std::uint8_t>(bus), .device = 0, .function = 0};
        const bool taken =
            std::any_of(machine.gpus.begin(), machine.gpus.end(), [&](const MachineGpu& gpu) {
                return gpu.pci.bus == pci.bus;
            });
        if (!taken) {
            out.push_back(pci);
        }
    }
    return out;
}

std::vector<MachineNvlink> gpu_nvlinks(const MachineFile& machine, std::size_t p) {
    if (p >= machine.gpus.size()) {
        return {};
    }
    if (!machine.gpus[p].nvlinks.empty()) {
        return machine.gpus[p].nvlinks;
    }
    return machine.nvswitch ? switch_links(machine, p) : direct_links(machine, p);
}

int cuda_can_access_peer(const MachineFile& machine, std::size_t p, std::size_t q) {
    if (p < machine.cuda_can_access_peer.size() && q < machine.cuda_can_access_peer[p].size()) {
        return machine.cuda_can_access_peer[p][q];
    }
    return p == q ? 0 : 1;
}

std::optional<std::size_t> gpu_position(const MachineFile& machine, int index) {
    for (std::size_t p = 0; p < machine.gpus.size(); ++p) {
        if (machine.gpus[p].index == index) {
            return p;
        }
    }
    return std::nullopt;
}

}  // namespace peergate::snapshot
