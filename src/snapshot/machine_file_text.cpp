// SPDX-License-Identifier: Apache-2.0
#include "snapshot/machine_file_text.hpp"

#include "snapshot/machine_aer.hpp"
#include "snapshot/machine_fabric.hpp"
#include "snapshot/machine_faults.hpp"
#include "snapshot/machine_nics.hpp"
#include "snapshot/machine_nvlink_errors.hpp"
#include "snapshot/machine_pcie_link.hpp"
#include "snapshot/machine_ports.hpp"
#include "snapshot/machine_traffic.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <utility>

namespace peergate::snapshot {

namespace {

using OJson = nlohmann::ordered_json;

std::string device_id_text(std::uint16_t id) {
    return fmt::format("0x{:04x}", id);
}

OJson nvlinks_to_json(const std::vector<MachineNvlink>& nvlinks) {
    OJson links = OJson::array();
    for (const auto& link : nvlinks) {
        OJson l{{"link", link.link}, {"active", link.active}, {"remote_type", link.remote_type}};
        if (link.remote_pci) {
            l["remote_pci"] = link.remote_pci->to_nvml();
        }
        links.push_back(l);
    }
    return links;
}

OJson gpu_to_json(const MachineGpu& gpu) {
    OJson j{{"index", gpu.index},
            {"name", gpu.name},
            {"pci_bus_id", gpu.pci.to_nvml()},
            {"uuid", gpu.uuid},
            {"numa_node", gpu.numa_node ? OJson(*gpu.numa_node) : OJson(nullptr)},
            {"cpu_affinity", gpu.cpu_affinity},
            {"nvlink_slots", gpu.nvlink_slots},
            {"memory_bytes", gpu.memory_bytes},
            {"pci_device_id", device_id_text(gpu.pci_device_id)},
            {"cc_major", gpu.cc_major},
            {"cc_minor", gpu.cc_minor}};
    if (!gpu.nvlinks.empty()) {
        j["nvlinks"] = nvlinks_to_json(gpu.nvlinks);
    }
    if (!gpu.upstream_ports.empty()) {
        j["upstream_ports"] = upstream_ports_to_json(gpu.upstream_ports);
    }
    if (gpu.pcie_link) {
        j["pcie_link"] = pcie_link_to_json(*gpu.pcie_link);
    }
    if (gpu.aer) {
        j["aer"] = aer_to_json(*gpu.aer);
    }
    if (gpu.nvlink_counters != model::NvlinkCounterSet::dl) {
        j["nvlink_counters"] = to_string(gpu.nvlink_counters);
    }
    if (!gpu.nvlink_errors.empty()) {
        j["nvlink_errors"] = nvlink_errors_to_json(gpu.nvlink_errors);
    }
    if (gpu.cuda_dma_buf) {
        j["cuda_dma_buf"] = *gpu.cuda_dma_buf;
    }
    if (gpu.fabric) {
        j["fabric"] = fabric_to_json(*gpu.fabric);
    }
    if (gpu.mig) {
        j["mig"] = OJson{{"enabled", gpu.mig->enabled}, {"pending", gpu.mig->pending}};
    }
    return j;
}

OJson matrix_to_json(const std::vector<std::vector<model::LinkLabel>>& matrix) {
    OJson rows = OJson::array();
    for (const auto& row : matrix) {
        OJson cells = OJson::array();
        for (const auto& label : row) {
            cells.push_back(label.to_token());
        }
        rows.push_back(cells);
    }
    return rows;
}

OJson host_to_json(const MachineHost& host) {
    OJson j{{"iommu", host.iommu},
            {"iommu_group_type", host.iommu_group_type},
            {"hypervisor", host.hypervisor},
            {"kernel_cmdline", host.kernel_cmdline},
            {"boot_id", host.boot_id},
            {"kernel_log", host.kernel_log},
            {"cpus", host.cpus}};
    // Fields whose "" means "not recorded" are left out, so older files read back alike.
    for (const auto& [name, value] :
         {std::pair{"peer_memory_module", &host.peer_memory_module},
          std::pair{"kernel_module", &host.kernel_module},
          std::pair{"kernel_release", &host.kernel_release},
          std::pair{"kernel_module_version", &host.kernel_module_version},
          std::pair{"cpu_arch", &host.cpu_arch},
          std::pair{"cpu_vendor", &host.cpu_vendor}}) {
        if (!value->empty()) {
            j[name] = *value;
        }
    }
    for (const auto& [name, value] :
         {std::pair{"cpu_family", &host.cpu_family}, std::pair{"cpu_model", &host.cpu_model}}) {
        if (*value) {
            j[name] = **value;
        }
    }
    return j;
}

template <typename T, typename ToJson>
OJson array_of(const std::vector<T>& items, ToJson to_json) {
    OJson out = OJson::array();
    for (const auto& item : items) {
        out.push_back(to_json(item));
    }
    return out;
}

}  // namespace

std::string to_json_text(const MachineFile& m) {
    OJson doc{{"schema", kMachineSchema},
              {"name", m.name},
              {"description", m.description},
              {"driver_version", m.driver_version},
              {"cuda_driver_version", m.cuda_driver_version},
              {"nvswitch", m.nvswitch}};
    doc["nvswitch_pci"] =
        array_of(m.nvswitch_pci, [](const model::PciAddress& pci) { return pci.to_nvml(); });
    doc["gpus"] = array_of(m.gpus, gpu_to_json);
    doc["matrix"] = matrix_to_json(m.matrix);
    doc["nvml_p2p"] = OJson{{"nvlink", m.nvml_p2p_nvlink},
                            {"read", m.nvml_p2p_read},
                            {"write", m.nvml_p2p_write},
                            {"atomics", m.nvml_p2p_atomics},
                            {"prop", m.nvml_p2p_prop}};
    doc["cuda_can_access_peer"] = m.cuda_can_access_peer;
    doc["host"] = host_to_json(m.host);
    doc["bandwidth"] = OJson{{"nvlink_gbps_per_link", m.bandwidth.nvlink_gbps_per_link},
                             {"pcie_gbps", m.bandwidth.pcie_gbps},
                             {"host_gbps", m.bandwidth.host_gbps},
                             {"device_gbps", m.bandwidth.device_gbps},
                             {"p2p_gbps", m.bandwidth.p2p_gbps}};
    doc["faults"] = array_of(m.faults, fault_to_json);
    if (m.traffic) {
        doc["traffic"] = traffic_to_json(*m.traffic);
    }
    if (!m.nics.empty()) {
        doc["nics"] = nics_to_json(m.nics);
    }
    doc["recorded"] = OJson{{"topo_m", m.recorded_topo_m}, {"query_gpu", m.recorded_query_gpu}};
    return doc.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

}  // namespace peergate::snapshot
