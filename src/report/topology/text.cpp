// SPDX-License-Identifier: Apache-2.0
#include "report/topology/text.hpp"

#include "report/topology/json.hpp"
#include "report/topology/text_columns.hpp"
#include "util/strings.hpp"

#include <fmt/format.h>

#include <string_view>
#include <utility>
#include <vector>

namespace peergate::report::topology {

namespace {

constexpr std::string_view kGreen = "\x1b[32m";
constexpr std::string_view kYellow = "\x1b[33m";
constexpr std::string_view kRed = "\x1b[31m";

// A matrix cell: nvidia-smi's token (" X " on the diagonal), green for NVLink, yellow for a
// PCIe path within a host bridge, red past it, when colour is on.
TextCell paint(const model::LinkLabel& label, bool color) {
    if (label.kind == model::LinkKind::self) {
        return {.text = " X "};
    }
    if (!color) {
        return {.text = label.to_token()};
    }
    const std::string_view tint = label.is_nvlink()                    ? kGreen
                                  : label.kind <= model::LinkKind::phb ? kYellow
                                                                       : kRed;
    return {.text = label.to_token(), .tint = tint};
}

// The header row: an empty corner, then "GPU<n>" for each GPU, then `trailing`.
TextRow header_row(const model::Topology& t, const std::vector<std::string>& trailing) {
    TextRow row{{.text = ""}};
    for (const auto& gpu : t.gpus) {
        row.push_back({.text = fmt::format("GPU{}", gpu.index)});
    }
    for (const auto& name : trailing) {
        row.push_back({.text = name});
    }
    return row;
}

void append_matrix(std::string& out, const model::Topology& t, bool color) {
    std::vector<TextRow> rows{header_row(t, {"CPU Affinity", "NUMA"})};
    for (std::size_t p = 0; p < t.size(); ++p) {
        const auto& gpu = t.gpus[p];
        TextRow row{{.text = fmt::format("GPU{}", gpu.index)}};
        for (std::size_t q = 0; q < t.size(); ++q) {
            row.push_back(paint(t.matrix[p][q], color));
        }
        row.push_back({.text = gpu.cpu_affinity.empty() ? "N/A" : gpu.cpu_affinity});
        row.push_back({.text = gpu.numa_node ? std::to_string(*gpu.numa_node) : "N/A"});
        rows.push_back(std::move(row));
    }
    out += columns_to_text(rows);
}

void append_gpus(std::string& out, const model::Topology& t) {
    for (const auto& gpu : t.gpus) {
        if (gpu.name.empty() && !gpu.pci) {
            continue;
        }
        out += fmt::format("  GPU{}  {}  {}  {}\n",
                           gpu.index,
                           gpu.pci ? gpu.pci->to_nvml() : "?",
                           gpu.name.empty() ? "?" : gpu.name,
                           gpu.uuid);
    }
}

// Its RDMA devices, interfaces and bus id; a NIC read from topo -m has no bus id, and "?"
// where no NIC Legend named it either.
std::string nic_names(const policy::placement::NicAffinity& affinity, const model::Nic& nic) {
    std::vector<std::string> names = nic.rdma_devices;
    names.insert(names.end(), nic.interfaces.begin(), nic.interfaces.end());
    if (!affinity.from_text) {
        names.push_back(nic.path.device.to_sysfs());
    }
    return names.empty() ? "?" : util::join(names, " ");
}

std::string islands_text(const model::Topology& t) {
    std::vector<std::string> parts;
    for (const auto& island : t.nvlink_islands()) {
        parts.push_back("{" + fmt::format("{}", fmt::join(island, ",")) + "}");
    }
    return util::join(parts, " ");
}

}  // namespace

std::string topology_to_text(const model::Discovery& discovery, const TextStyle& style) {
    std::string out;
    if (style.verbose) {
        for (const auto& attempt : discovery.attempts) {
            out += fmt::format("tier {}: {}\n",
                               attempt.tier,
                               attempt.topology ? "answered" : "no verdict: " + attempt.reason);
        }
    }
    const model::Topology* described = discovery.described();
    if (described == nullptr) {
        out += "interconnect matrix unreadable: " + unreadable_reason(discovery) + "\n";
        return out;
    }
    const auto& t = *described;
    out += fmt::format("source: {} ({})\n", model::to_string(t.source), t.provenance);
    append_matrix(out, t, style.color);
    append_gpus(out, t);
    out += "NVLink islands: " + islands_text(t) + "\n";
    if (!discovery.topology) {
        out += "one GPU: no pair, so no interconnect matrix to judge and no peer-to-peer traffic\n";
    }
    if (discovery.crosscheck) {
        const auto& check = *discovery.crosscheck;
        out += check.agree() ? "cross-check: NVML and nvidia-smi topo -m agree\n"
                             : fmt::format(
                                   "cross-check: DISAGREE; NVLinked per NVML only: {}; per topo -m "
                                   "only: {}; using topo -m\n",
                                   check.nvml_only.size(),
                                   check.smi_only.size());
    }
    return out;
}

std::string nic_short_name(const policy::placement::NicAffinity& affinity, std::size_t n) {
    const auto& nic = affinity.nics[n];
    return !nic.rdma_devices.empty() ? nic.rdma_devices.front()
           : !nic.interfaces.empty() ? nic.interfaces.front()
                                     : fmt::format("NIC{}", n);
}

std::string nics_to_text(const policy::placement::NicAffinity& affinity,
                         const model::Topology& t,
                         const TextStyle& style) {
    if (affinity.nics.empty()) {
        return "";
    }
    std::vector<TextRow> rows{header_row(t, {"NUMA", "Names"})};
    std::size_t virtual_functions = 0;
    for (std::size_t n = 0; n < affinity.nics.size(); ++n) {
        const auto& nic = affinity.nics[n];
        if (nic.physical_function) {
            ++virtual_functions;  // where its physical function is: a row would repeat it
            continue;
        }
        TextRow row{{.text = fmt::format("NIC{}", n)}};
        for (const auto& label : affinity.labels[n]) {
            row.push_back(paint(label, style.color));
        }
        row.push_back({.text = nic.numa_node ? std::to_string(*nic.numa_node) : "N/A"});
        row.push_back({.text = nic_names(affinity, nic)});
        rows.push_back(std::move(row));
    }
    std::string out = columns_to_text(rows);
    std::vector<std::string> nearest;
    for (std::size_t p = 0; p < t.size(); ++p) {
        nearest.push_back(nearest_nic_text(affinity, p, t.gpus[p].index));
    }
    if (virtual_functions > 0) {
        out +=
            fmt::format("(and {} SR-IOV virtual functions, each where its physical function is)\n",
                        virtual_functions);
    }
    return out + "Nearest NIC: " + util::join(nearest, ", ") + "\n";
}

std::string nearest_nic_text(const policy::placement::NicAffinity& affinity,
                             std::size_t p,
                             int index) {
    const auto nearest = policy::placement::nearest_nics(affinity, p);
    if (nearest.empty()) {
        return fmt::format("GPU{} ?", index);
    }
    std::vector<std::string> names;
    for (const auto n : nearest) {
        names.push_back(nic_short_name(affinity, n));
    }
    return fmt::format("GPU{} {} ({})",
                       index,
                       util::join(names, ","),
                       affinity.labels[nearest.front()][p].to_token());
}

}  // namespace peergate::report::topology
