// SPDX-License-Identifier: Apache-2.0
#include "sources/smi/topo_m_nics.hpp"

#include "util/strings.hpp"

#include <fmt/format.h>

namespace peergate::sources::smi {

using topo_m::at_line;
using topo_m::Header;
using topo_m::unreadable;

namespace {

// Why cell k of a NIC row does not fit, or "" when it does: under a GPU column it must be the
// path that GPU's row gave the NIC (nvidia-smi prints one symmetric matrix), under the NIC
// columns X in its own column and only there.
std::string nic_cell_misfit(const Header& header,
                            const model::Topology& topology,
                            const NicRow& row,
                            std::size_t k,
                            model::LinkLabel label) {
    const std::size_t n = header.gpus.size();
    const auto& nic = topology.nics[row.nic];
    if (k < n) {
        return label == nic.paths[k] ? ""
                                     : fmt::format("row GPU{} has '{}' under {}",
                                                   header.gpus[k],
                                                   nic.paths[k].to_token(),
                                                   nic.name);
    }
    const bool own = k == n + row.nic;
    if (own == (label.kind == model::LinkKind::self)) {
        return "";
    }
    return own ? "its own column must be X" : "X belongs under its own column only";
}

// A NIC row holds the NIC's path to every GPU and NIC and no affinity: one label per GPU and
// NIC column, each where nic_cell_misfit wants it. A row that does not fit means the cells are
// not where the header says, so the whole output is unreadable.
util::Expected<void> check_nic_row(const Header& header,
                                   const NicRow& row,
                                   const model::Topology& topology) {
    const std::size_t n = header.gpus.size();
    const auto& name = topology.nics[row.nic].name;
    const std::size_t width = n + topology.nics.size();
    if (row.cells.size() != width) {
        return unreadable(at_line(row.line,
                                  fmt::format("NIC row {} has {} cells for {} GPU and NIC columns",
                                              name,
                                              row.cells.size(),
                                              width)));
    }
    for (std::size_t k = 0; k < width; ++k) {
        const auto label = model::LinkLabel::parse(row.cells[k]);
        if (!label) {
            return unreadable(at_line(
                row.line,
                fmt::format(
                    "vocabulary: NIC row {} has '{}', not a legend token", name, row.cells[k])));
        }
        const std::string misfit = nic_cell_misfit(header, topology, row, k, *label);
        if (!misfit.empty()) {
            const std::string column =
                k < n ? fmt::format("GPU{}", header.gpus[k]) : topology.nics[k - n].name;
            return unreadable(at_line(
                row.line,
                fmt::format(
                    "NIC row {} has '{}' under {}, but {}", name, row.cells[k], column, misfit)));
        }
    }
    return {};
}

// "NIC<n>": the column name of drivers that print a NIC Legend.
bool is_numbered_nic(std::string_view name) {
    return name.size() > 3 && name.substr(0, 3) == "NIC" && util::parse_int<int>(name.substr(3));
}

}  // namespace

util::Expected<void> check_nic_rows(const Header& header,
                                    const std::vector<NicRow>& rows,
                                    const model::Topology& topology) {
    std::vector<bool> seen(topology.nics.size(), false);
    for (const NicRow& row : rows) {
        if (seen[row.nic]) {
            return unreadable(at_line(
                row.line, fmt::format("NIC row {} appears twice", topology.nics[row.nic].name)));
        }
        seen[row.nic] = true;
        PEERGATE_TRY(check_nic_row(header, row, topology));
    }
    for (std::size_t k = 0; k < seen.size(); ++k) {
        if (!seen[k]) {
            return unreadable(
                fmt::format("missing row for NIC {} (output cut off?)", topology.nics[k].name));
        }
    }
    return {};
}

util::Expected<void> name_devices(const Header& header,
                                  bool nic_legend,
                                  const std::vector<LegendEntry>& legend,
                                  model::Topology& topology) {
    for (auto& nic : topology.nics) {
        nic.device = is_numbered_nic(nic.name) ? "" : nic.name;
    }
    for (const LegendEntry& entry : legend) {
        const auto k = header.nic_of(entry.column);
        if (!k || !is_numbered_nic(entry.column)) {
            return unreadable(at_line(
                entry.line,
                fmt::format("the NIC Legend names {}, which is no NIC<n> column", entry.column)));
        }
        if (!topology.nics[*k].device.empty()) {
            return unreadable(
                at_line(entry.line, fmt::format("the NIC Legend names {} twice", entry.column)));
        }
        topology.nics[*k].device = entry.device;
    }
    for (const auto& nic : topology.nics) {
        if (nic_legend && nic.device.empty()) {
            return unreadable(
                fmt::format("the NIC Legend has no line for {} (output cut off?)", nic.name));
        }
    }
    return {};
}

}  // namespace peergate::sources::smi
