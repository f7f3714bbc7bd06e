// SPDX-License-Identifier: Apache-2.0
#include "snapshot/machine_file.hpp"

#include "model/topology.hpp"
#include "snapshot/machine_aer.hpp"
#include "snapshot/machine_fabric.hpp"
#include "snapshot/machine_faults.hpp"
#include "snapshot/machine_json.hpp"
#include "snapshot/machine_limits.hpp"
#include "snapshot/machine_nics.hpp"
#include "snapshot/machine_nvlink_errors.hpp"
#include "snapshot/machine_pcie_link.hpp"
#include "snapshot/machine_ports.hpp"
#include "snapshot/machine_schema.hpp"
#include "snapshot/machine_traffic.hpp"
#include "util/atomic_file.hpp"
#include "util/bounded_read.hpp"
#include "util/json_read.hpp"
#include "util/strings.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <set>
#include <string_view>

namespace peergate::snapshot {

namespace {

using Json = nlohmann::json;

using machine_json::get_or;
using machine_json::invalid;
using machine_json::pci_field;
using machine_json::take;

util::Expected<MachineNvlink> parse_nvlink(const Json& j, const std::string& where) {
    MachineNvlink link;
    link.link = get_or(j, "link", 0);
    link.active = get_or(j, "active", true);
    link.remote_type = get_or<std::string>(j, "remote_type", "gpu");
    if (link.remote_type != "gpu" && link.remote_type != "switch") {
        return invalid(where + ".remote_type: '" + link.remote_type + "' is not gpu or switch");
    }
    if (j.contains("remote_pci")) {
        auto pci = pci_field(j["remote_pci"], where + ".remote_pci");
        if (!pci) {
            return util::unexpected(pci.error());
        }
        link.remote_pci = *pci;
    }
    return link;
}

// "0x2901" -> 0x2901; anything unreadable is 0 (unknown).
std::uint16_t parse_device_id(const std::string& text) {
    const std::string_view digits = std::string_view(text).substr(text.starts_with("0x") ? 2 : 0);
    return util::parse_hex<std::uint16_t>(digits).value_or(0);
}

// "mig": {"enabled": true, "pending": true}; "pending" defaults to "enabled".
util::Expected<std::optional<model::MigMode>> parse_mig(const Json& gpu, const std::string& where) {
    if (!gpu.contains("mig")) {
        return std::optional<model::MigMode>();
    }
    const Json& mig = gpu["mig"];
    const bool enabled_ok = mig.is_object() && mig.value("enabled", Json()).is_boolean();
    if (!enabled_ok || (mig.contains("pending") && !mig["pending"].is_boolean())) {
        return invalid(where +
                       ".mig: {\"enabled\": true or false, \"pending\": true or false} "
                       "is required, not " +
                       mig.dump());
    }
    const bool enabled = mig["enabled"].get<bool>();
    return std::optional<model::MigMode>(
        model::MigMode{.enabled = enabled, .pending = mig.value("pending", enabled)});
}

util::Expected<MachineGpu> parse_gpu(const Json& j, std::size_t position) {
    const std::string where = fmt::format("gpus[{}]", position);
    MachineGpu gpu;
    gpu.index = get_or(j, "index", static_cast<int>(position));
    gpu.name = get_or<std::string>(j, "name", "");
    auto pci = pci_field(j.value("pci_bus_id", Json()), where + ".pci_bus_id");
    if (!pci) {
        return util::unexpected(pci.error());
    }
    gpu.pci = *pci;
    gpu.uuid = get_or<std::string>(j, "uuid", fmt::format("GPU-sim-{:04d}", position));
    if (j.contains("numa_node") && !j["numa_node"].is_null()) {
        gpu.numa_node = j["numa_node"].get<int>();
    }
    gpu.cpu_affinity = get_or<std::string>(j, "cpu_affinity", "");
    gpu.nvlink_slots = get_or(j, "nvlink_slots", 0);
    gpu.memory_bytes = get_or<std::uint64_t>(j, "memory_bytes", 80ULL << 30U);
    gpu.pci_device_id = parse_device_id(get_or<std::string>(j, "pci_device_id", "0x0000"));
    gpu.cc_major = get_or(j, "cc_major", 9);
    gpu.cc_minor = get_or(j, "cc_minor", 0);
    for (std::size_t k = 0; j.contains("nvlinks") && k < j["nvlinks"].size(); ++k) {
        auto link = parse_nvlink(j["nvlinks"][k], fmt::format("{}.nvlinks[{}]", where, k));
        if (!link) {
            return util::unexpected(link.error());
        }
        gpu.nvlinks.push_back(*link);
    }
    PEERGATE_TRY(take(parse_upstream_ports(j, where), gpu.upstream_ports));
    PEERGATE_TRY(take(parse_nvlink_errors(j, where), gpu.nvlink_errors));
    PEERGATE_TRY(take(parse_nvlink_counter_set(j, where), gpu.nvlink_counters));
    PEERGATE_TRY(take(parse_pcie_link(j, where), gpu.pcie_link));
    PEERGATE_TRY(take(parse_aer(j, where), gpu.aer));
    if (j.contains("cuda_dma_buf")) {
        gpu.cuda_dma_buf = j["cuda_dma_buf"].get<bool>();  // the schema checked its kind
    }
    PEERGATE_TRY(take(parse_fabric(j, where), gpu.fabric));
    PEERGATE_TRY(take(parse_mig(j, where), gpu.mig));
    return gpu;
}

util::Expected<void> parse_matrix(const Json& j, MachineFile& m) {
    if (!j.is_array() || j.size() != m.gpus.size()) {
        return invalid(fmt::format("matrix: {} rows are needed, one per GPU", m.gpus.size()));
    }
    model::Topology topology;
    for (const auto& gpu : m.gpus) {
        topology.gpus.push_back(model::Gpu{.index = gpu.index});
    }
    for (std::size_t p = 0; p < j.size(); ++p) {
        std::vector<model::LinkLabel> row;
        for (const auto& cell : j[p]) {
            auto label = model::LinkLabel::parse(cell.is_string() ? cell.get<std::string>() : "");
            if (!label) {
                return invalid(
                    fmt::format("matrix[{}]: '{}' is not a topo -m token", p, cell.dump()));
            }
            row.push_back(*label);
        }
        topology.matrix.push_back(row);
    }
    if (auto ok = model::check_matrix(topology); !ok) {
        return invalid("matrix: " + ok.error().message);
    }
    m.matrix = topology.matrix;
    return {};
}

util::Expected<void> check_status_matrix(const std::vector<std::vector<std::string>>& statuses,
                                         std::size_t n,
                                         const char* field) {
    constexpr std::array<std::string_view, 8> kTokens{
        "X", "OK", "CNS", "GNS", "TNS", "DR", "NS", "U"};
    if (statuses.empty()) {
        return {};
    }
    if (statuses.size() != n) {
        return invalid(fmt::format("{}: {} rows for {} GPUs", field, statuses.size(), n));
    }
    for (std::size_t p = 0; p < n; ++p) {
        if (statuses[p].size() != n) {
            return invalid(
                fmt::format("{}[{}]: {} entries for {} GPUs", field, p, statuses[p].size(), n));
        }
        for (const auto& token : statuses[p]) {
            if (std::find(kTokens.begin(), kTokens.end(), token) == kTokens.end()) {
                return invalid(fmt::format(
                    "{}[{}]: '{}' is not one of X OK CNS GNS TNS DR NS U", field, p, token));
            }
        }
    }
    return {};
}

// The CPUs' kind; what the file leaves out stays unknown.
void parse_host_cpu(const Json& j, MachineHost& host) {
    host.cpu_arch = get_or<std::string>(j, "cpu_arch", "");
    host.cpu_vendor = get_or<std::string>(j, "cpu_vendor", "");
    for (const auto& [key, into] :
         {std::pair{"cpu_family", &host.cpu_family}, std::pair{"cpu_model", &host.cpu_model}}) {
        if (j.contains(key) && !j[key].is_null()) {
            *into = j[key].get<int>();
        }
    }
}

util::Expected<void> parse_host(const Json& j, MachineHost& host) {
    host.iommu = get_or<std::string>(j, "iommu", "off");
    host.iommu_group_type =
        get_or<std::string>(j, "iommu_group_type", host.iommu == "translating" ? "DMA-FQ" : "");
    host.hypervisor = get_or(j, "hypervisor", false);
    host.kernel_cmdline = get_or<std::string>(j, "kernel_cmdline", "");
    host.boot_id = get_or<std::string>(j, "boot_id", "00000000-0000-4000-8000-000000000000");
    host.kernel_log = get_or<std::string>(j, "kernel_log", "");
    host.peer_memory_module = get_or<std::string>(j, "peer_memory_module", "");
    host.cpus = get_or<std::vector<std::vector<int>>>(j, "cpus", {});
    host.kernel_module = get_or<std::string>(j, "kernel_module", "");
    host.kernel_release = get_or<std::string>(j, "kernel_release", "");
    host.kernel_module_version = get_or<std::string>(j, "kernel_module_version", "");
    parse_host_cpu(j, host);
    if (!host.kernel_module_version.empty() && host.kernel_module.empty()) {
        return invalid("host.kernel_module_version needs host.kernel_module (its flavour)");
    }
    const auto& module = host.peer_memory_module;
    if (!module.empty() && module != "nvidia_peermem" && module != "nv_peer_mem") {
        return invalid(
            "host.peer_memory_module: expected \"nvidia_peermem\", \"nv_peer_mem\" "
            "or nothing, got \"" +
            module + "\"");
    }
    if (!host.kernel_module.empty() && host.kernel_module != "open" &&
        host.kernel_module != "proprietary") {
        return invalid("host.kernel_module: expected \"open\", \"proprietary\" or nothing, got \"" +
                       host.kernel_module + "\"");
    }
    return {};
}

void parse_bandwidth(const Json& j, MachineBandwidth& bw) {
    bw.nvlink_gbps_per_link = get_or(j, "nvlink_gbps_per_link", bw.nvlink_gbps_per_link);
    bw.pcie_gbps = get_or(j, "pcie_gbps", bw.pcie_gbps);
    bw.host_gbps = get_or(j, "host_gbps", bw.host_gbps);
    bw.device_gbps = get_or(j, "device_gbps", bw.device_gbps);
    bw.p2p_gbps = get_or<std::vector<std::vector<double>>>(j, "p2p_gbps", {});
}

util::Expected<void> parse_gpus(const Json& doc, MachineFile& m) {
    if (!doc.contains("gpus") || !doc["gpus"].is_array() || doc["gpus"].empty()) {
        return invalid("gpus: at least one GPU is required");
    }
    std::set<int> seen;
    for (std::size_t p = 0; p < doc["gpus"].size(); ++p) {
        auto gpu = parse_gpu(doc["gpus"][p], p);
        if (!gpu) {
            return util::unexpected(gpu.error());
        }
        if (!seen.insert(gpu->index).second) {
            return invalid(fmt::format("gpus[{}]: index {} appears twice", p, gpu->index));
        }
        m.gpus.push_back(*gpu);
    }
    return {};
}

util::Expected<void> parse_nvswitches(const Json& j, MachineFile& m) {
    for (std::size_t k = 0; k < j.size(); ++k) {
        auto pci = pci_field(j[k], fmt::format("nvswitch_pci[{}]", k));
        if (!pci) {
            return util::unexpected(pci.error());
        }
        m.nvswitch_pci.push_back(*pci);
    }
    return {};
}

// "nvml_p2p": the status matrix of each caps index, square over the GPUs where given.
util::Expected<void> parse_nvml_status(const Json& nvml, MachineFile& m) {
    m.nvml_p2p_nvlink = get_or<std::vector<std::vector<std::string>>>(nvml, "nvlink", {});
    m.nvml_p2p_read = get_or<std::vector<std::vector<std::string>>>(nvml, "read", {});
    m.nvml_p2p_write = get_or<std::vector<std::vector<std::string>>>(nvml, "write", {});
    m.nvml_p2p_atomics = get_or<std::vector<std::vector<std::string>>>(nvml, "atomics", {});
    m.nvml_p2p_prop = get_or<std::vector<std::vector<std::string>>>(nvml, "prop", {});
    PEERGATE_TRY(check_status_matrix(m.nvml_p2p_nvlink, m.gpus.size(), "nvml_p2p.nvlink"));
    PEERGATE_TRY(check_status_matrix(m.nvml_p2p_read, m.gpus.size(), "nvml_p2p.read"));
    PEERGATE_TRY(check_status_matrix(m.nvml_p2p_write, m.gpus.size(), "nvml_p2p.write"));
    PEERGATE_TRY(check_status_matrix(m.nvml_p2p_atomics, m.gpus.size(), "nvml_p2p.atomics"));
    return check_status_matrix(m.nvml_p2p_prop, m.gpus.size(), "nvml_p2p.prop");
}

util::Expected<MachineFile> parse_document(const Json& doc) {
    if (!util::json_string_is(doc, "schema", kMachineSchema)) {
        return invalid(std::string("\"schema\" must be \"") + kMachineSchema + "\"");
    }
    PEERGATE_TRY(check_field_types(doc));
    PEERGATE_TRY(check_limits(doc));
    MachineFile m;
    m.name = doc.value("name", "");
    m.description = doc.value("description", "");
    m.driver_version = doc.value("driver_version", m.driver_version);
    m.cuda_driver_version = doc.value("cuda_driver_version", m.cuda_driver_version);
    m.nvswitch = doc.value("nvswitch", false);
    PEERGATE_TRY(parse_nvswitches(doc.value("nvswitch_pci", Json::array()), m));
    PEERGATE_TRY(parse_gpus(doc, m));
    PEERGATE_TRY(take(parse_nics(doc), m.nics));
    PEERGATE_TRY(check_shared_ports(m.gpus, m.nics));
    PEERGATE_TRY(parse_matrix(doc.value("matrix", Json::array()), m));
    PEERGATE_TRY(parse_nvml_status(doc.value("nvml_p2p", Json::object()), m));
    m.cuda_can_access_peer = get_or<std::vector<std::vector<int>>>(doc, "cuda_can_access_peer", {});
    PEERGATE_TRY(parse_host(doc.value("host", Json::object()), m.host));
    parse_bandwidth(doc.value("bandwidth", Json::object()), m.bandwidth);
    const Json faults = doc.value("faults", Json::array());
    for (std::size_t k = 0; k < faults.size(); ++k) {
        auto fault = parse_fault(faults[k], k);
        if (!fault) {
            return util::unexpected(fault.error());
        }
        m.faults.push_back(*fault);
    }
    PEERGATE_TRY(take(parse_traffic(doc, m), m.traffic));
    const Json recorded = doc.value("recorded", Json::object());
    m.recorded_topo_m = get_or<std::string>(recorded, "topo_m", "");
    m.recorded_query_gpu = get_or<std::string>(recorded, "query_gpu", "");
    return m;
}

}  // namespace

bool driver_mismatch(const MachineFile& machine) {
    return running_module_version(machine) != machine.driver_version;
}

bool fabric_unregistered(const MachineFile& machine) {
    return std::any_of(machine.gpus.begin(), machine.gpus.end(), [](const MachineGpu& gpu) {
        return gpu.fabric && gpu.fabric->state != model::FabricState::not_supported &&
               !gpu.fabric->ready();
    });
}

const std::string& running_module_version(const MachineFile& machine) {
    const auto& running = machine.host.kernel_module_version;
    return running.empty() ? machine.driver_version : running;
}

util::Expected<MachineFile> parse_machine(std::string_view json_text) {
    // nlohmann throws on malformed JSON and on type mismatches; this is its one entry point.
    try {
        return parse_document(Json::parse(json_text));
    } catch (const Json::exception& e) {
        return invalid(e.what());
    }
}

util::Expected<MachineFile> load_machine(const std::string& path) {
    // An 8-GPU gathered machine is ~200 KB; what is far larger is not a machine (issue 34).
    constexpr std::size_t kLargestMachineFile = std::size_t{16} << 20U;
    auto text = util::read_regular_file(path, kLargestMachineFile);
    if (!text) {
        return util::unexpected(text.error());
    }
    auto machine = parse_machine(*text);
    if (!machine) {
        return util::unexpected(machine.error().code, path + ": " + machine.error().message);
    }
    return machine;
}

std::vector<MachineFault> faults_for(const MachineFile& machine,
                                     const std::string& layer,
                                     const std::string& call) {
    std::vector<MachineFault> out;
    std::copy_if(machine.faults.begin(),
                 machine.faults.end(),
                 std::back_inserter(out),
                 [&](const MachineFault& f) {
                     return f.layer == layer && (call.empty() || f.call.empty() || f.call == call);
                 });
    return out;
}

}  // namespace peergate::snapshot
