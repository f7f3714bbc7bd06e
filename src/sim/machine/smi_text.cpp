// SPDX-License-Identifier: Apache-2.0
#include "sim/machine/smi_text.hpp"

#include "util/strings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>

namespace peergate::sim {

namespace {

// The legend of a current driver (R535 and later), word for word.
constexpr const char* kTopoLegend =
    "\n"
    "Legend:\n"
    "\n"
    "  X    = Self\n"
    "  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g., "
    "QPI/UPI)\n"
    "  NODE = Connection traversing PCIe as well as the interconnect between PCIe Host Bridges "
    "within a NUMA node\n"
    "  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)\n"
    "  PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe Host "
    "Bridge)\n"
    "  PIX  = Connection traversing at most a single PCIe bridge\n"
    "  NV#  = Connection traversing a bonded set of # NVLinks\n";

constexpr const char* kP2pLegend =
    "\n"
    "Legend:\n"
    "\n"
    "  X    = Self\n"
    "  OK   = Status Ok\n"
    "  CNS  = Chipset not supported\n"
    "  GNS  = GPU not supported\n"
    "  TNS  = Topology not supported\n"
    "  NS   = Not supported\n"
    "  DR   = Disabled by regkey\n"
    "  U    = Unknown\n";

std::string gpu_columns(const snapshot::MachineFile& m) {
    std::vector<std::string> names;
    for (const auto& gpu : m.gpus) {
        names.push_back(fmt::format("GPU{}", gpu.index));
    }
    return util::join(names, "\t");
}

std::string topo_row(const snapshot::MachineFile& m, std::size_t p) {
    const auto& gpu = m.gpus[p];
    std::string row = fmt::format("GPU{}", gpu.index);
    for (std::size_t q = 0; q < m.gpus.size(); ++q) {
        row += p == q ? "\t X " : "\t" + m.matrix[p][q].to_token();
    }
    const std::string cpus = gpu.cpu_affinity.empty() ? "N/A" : gpu.cpu_affinity;
    const std::string numa = gpu.numa_node ? std::to_string(*gpu.numa_node) : "N/A";
    // NUMA Affinity and GPU NUMA ID are separated by two tabs in the real output.
    return row + "\t" + cpus + "\t" + numa + "\t\tN/A\n";
}

std::string memory_total(const snapshot::MachineGpu& gpu, bool units) {
    const std::uint64_t mib = gpu.memory_bytes >> 20U;
    return units ? fmt::format("{} MiB", mib) : std::to_string(mib);
}

using FieldRenderer = std::function<std::string(
    const snapshot::MachineFile&, const snapshot::MachineGpu&, bool units)>;

const std::map<std::string, FieldRenderer>& field_renderers() {
    static const std::map<std::string, FieldRenderer> kFields{
        {"index", [](const auto&, const auto& g, bool) { return std::to_string(g.index); }},
        {"name", [](const auto&, const auto& g, bool) { return g.name; }},
        {"pci.bus_id", [](const auto&, const auto& g, bool) { return g.pci.to_nvml(); }},
        {"gpu_bus_id", [](const auto&, const auto& g, bool) { return g.pci.to_nvml(); }},
        {"uuid", [](const auto&, const auto& g, bool) { return g.uuid; }},
        {"driver_version", [](const auto& m, const auto&, bool) { return m.driver_version; }},
        {"memory.total", [](const auto&, const auto& g, bool u) { return memory_total(g, u); }},
        {"compute_cap",
         [](const auto&, const auto& g, bool) {
             return fmt::format("{}.{}", g.cc_major, g.cc_minor);
         }},
        {"pci.device_id",
         [](const auto&, const auto& g, bool) {
             return fmt::format("0x{:04X}10DE", g.pci_device_id);
         }},
        {"count", [](const auto& m, const auto&, bool) { return std::to_string(m.gpus.size()); }},
    };
    return kFields;
}

std::string header_name(const std::string& field, bool units) {
    return field == "memory.total" && units ? "memory.total [MiB]" : field;
}

}  // namespace

std::string render_topo_m(const snapshot::MachineFile& machine, std::size_t rows) {
    std::string text =
        "\t\x1b[4m" + gpu_columns(machine) + "\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\x1b[0m\n";
    const std::size_t shown = std::min(rows, machine.gpus.size());
    for (std::size_t p = 0; p < shown; ++p) {
        text += topo_row(machine, p);
    }
    return shown == machine.gpus.size() ? text + kTopoLegend : text;
}

std::string render_topo_p2p(const snapshot::MachineFile& machine,
                            snapshot::P2pCaps caps,
                            std::size_t rows) {
    const auto statuses = snapshot::p2p_status_matrix(machine, caps);
    std::string text = "\t" + gpu_columns(machine) + "\n";
    const std::size_t shown = std::min(rows, machine.gpus.size());
    for (std::size_t p = 0; p < shown; ++p) {
        text += fmt::format(" GPU{}\t{}\n", machine.gpus[p].index, util::join(statuses[p], "\t"));
    }
    return shown == machine.gpus.size() ? text + kP2pLegend : text;
}

util::Expected<CsvFormat> parse_csv_format(const std::string& text) {
    const auto parts = util::split(text, ',');
    if (parts.empty() || util::trim(parts[0]) != "csv") {
        return util::unexpected(
            util::ErrorCode::invalid_input,
            fmt::format("'{}' is not a supported format (csv[,noheader][,nounits])", text));
    }
    CsvFormat format;
    for (std::size_t k = 1; k < parts.size(); ++k) {
        const auto option = util::trim(parts[k]);
        if (option == "noheader") {
            format.header = false;
        } else if (option == "nounits") {
            format.units = false;
        } else {
            return util::unexpected(util::ErrorCode::invalid_input,
                                    fmt::format("'{}' is not a csv format option", option));
        }
    }
    return format;
}

util::Expected<std::string> render_query_gpu(const snapshot::MachineFile& machine,
                                             const std::string& fields,
                                             CsvFormat format,
                                             std::size_t rows) {
    std::vector<std::string> names;
    for (const auto field : util::split(fields, ',')) {
        const std::string name(util::trim(field));
        if (!field_renderers().contains(name)) {
            return util::unexpected(
                util::ErrorCode::invalid_input,
                fmt::format("Field \"{}\" is not a valid field to query.", name));
        }
        names.push_back(name);
    }
    std::string text;
    if (format.header) {
        std::vector<std::string> headers;
        for (const auto& name : names) {
            headers.push_back(header_name(name, format.units));
        }
        text += util::join(headers, ", ") + "\n";
    }
    const std::size_t shown = std::min(rows, machine.gpus.size());
    for (std::size_t p = 0; p < shown; ++p) {
        std::vector<std::string> values;
        for (const auto& name : names) {
            values.push_back(field_renderers().at(name)(machine, machine.gpus[p], format.units));
        }
        text += util::join(values, ", ") + "\n";
    }
    return text;
}

std::string render_list(const snapshot::MachineFile& machine, std::size_t rows) {
    std::string text;
    const std::size_t shown = std::min(rows, machine.gpus.size());
    for (std::size_t p = 0; p < shown; ++p) {
        const auto& gpu = machine.gpus[p];
        text += fmt::format("GPU {}: {} (UUID: {})\n", gpu.index, gpu.name, gpu.uuid);
    }
    return text;
}

}  // namespace peergate::sim
