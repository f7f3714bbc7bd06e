// SPDX-License-Identifier: Apache-2.0
#include "report/exports/prometheus_hardware.hpp"

#include "policy/doctor/pcie_aer.hpp"
#include "policy/doctor/pcie_link.hpp"
#include "report/exports/prometheus_family.hpp"
#include "report/exports/prometheus_nvlink.hpp"
#include "util/strings.hpp"

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

namespace peergate::report::exports {

namespace {

using Labels = PrometheusLabels;
using Family = PrometheusFamily;

// A link's trained width and the most both its ends can do, where sysfs said.
void sample_link(const policy::doctor::PcieLinkState& link,
                 const Labels& labels,
                 Family& width,
                 Family& capable) {
    if (link.width) {
        width.sample(labels, *link.width);
    }
    if (link.capable) {
        capable.sample(labels, *link.capable);
    }
}

// Each examined GPU's own PCIe link: the lanes it trained at and the most both ends can do.
std::string pcie_link_families(const ExportFacts& facts) {
    Family width("peergate_gpu_pcie_link_width",
                 "gauge",
                 "Lanes the GPU's PCIe link trained at (sysfs current_link_width).");
    Family capable("peergate_gpu_pcie_link_max_width",
                   "gauge",
                   "Lanes the GPU's PCIe link can do: the smaller max_link_width of the GPU and "
                   "its port; below it is the doctor's pcie_link_narrow.");
    const auto* topology = facts.doctor.discovery.described();
    if (topology == nullptr) {
        return "";
    }
    for (const auto& link : policy::doctor::pcie_links(facts.doctor, *topology)) {
        if (link.lower_is_gpu) {
            sample_link(link, {{"gpu", std::to_string(link.gpus.front())}}, width, capable);
        }
    }
    return width.text() + capable.text();
}

// A device's three AER totals, one sample per file that was read.
void sample_aer(const model::PciAer& aer,
                const char* key,
                const model::PciAddress& device,
                Family& errors) {
    for (const auto& [severity, file] : {std::pair{"correctable", &aer.correctable},
                                         std::pair{"nonfatal", &aer.nonfatal},
                                         std::pair{"fatal", &aer.fatal}}) {
        if (*file) {
            errors.sample({{key, device.to_sysfs()}, {"severity", severity}},
                          static_cast<double>((*file)->sum()));
        }
    }
}

// The AER counters of every device on the examined GPUs' paths, by file.
std::string pcie_aer_family(const ExportFacts& facts) {
    Family errors("peergate_pcie_aer_errors_total",
                  "counter",
                  "PCIe AER error messages since boot of a GPU or a port above it (sysfs "
                  "aer_dev_*: TOTAL_ERR_COR, TOTAL_ERR_NONFATAL, TOTAL_ERR_FATAL).");
    const auto* topology = facts.doctor.discovery.described();
    if (topology == nullptr) {
        return "";
    }
    for (const auto& [device, gpus] : policy::doctor::gpus_through(facts.doctor, *topology)) {
        const auto aer = facts.doctor.aer.find(device);
        if (aer == facts.doctor.aer.end()) {
            continue;
        }
        sample_aer(aer->second, "pci_bus_id", device, errors);
    }
    return errors.text();
}

// Each physical NIC's own AER totals (the doctor's nic_aer_errors).
std::string nic_aer_family(const ExportFacts& facts) {
    Family errors("peergate_nic_aer_errors_total",
                  "counter",
                  "PCIe AER error messages since boot of a NIC (sysfs aer_dev_*: "
                  "TOTAL_ERR_COR, TOTAL_ERR_NONFATAL, TOTAL_ERR_FATAL).");
    for (const auto& nic : facts.doctor.nics) {
        const auto aer = facts.doctor.aer.find(nic.path.device);
        if (!nic.physical_function && aer != facts.doctor.aer.end()) {
            sample_aer(aer->second, "nic", nic.path.device, errors);
        }
    }
    return errors.text();
}

// Each physical network function sysfs shows, by bus id, with the names NCCL's settings use
// for it; a NIC whose driver did not come up has no RDMA device (the label is absent).
std::string nic_family(const ExportFacts& facts) {
    Family info("peergate_nic_info",
                "gauge",
                "Each physical NIC (one per card) sysfs shows: its RDMA devices (NCCL_IB_HCA), "
                "network interfaces (NCCL_SOCKET_IFNAME) and NUMA node.");
    for (const auto& nic : facts.doctor.nics) {
        if (!nic.physical_function) {
            info.sample({{"nic", nic.path.device.to_sysfs()},
                         {"rdma_device", util::join(nic.rdma_devices, ",")},
                         {"interface", util::join(nic.interfaces, ",")},
                         {"numa_node", nic.numa_node ? std::to_string(*nic.numa_node) : ""}},
                        1);
        }
    }
    return info.text();
}

// Each physical NIC's own PCIe link, as the GPUs' (nic_link_narrow judges it).
std::string nic_link_families(const ExportFacts& facts) {
    Family width("peergate_nic_pcie_link_width",
                 "gauge",
                 "Lanes the NIC's PCIe link trained at (sysfs current_link_width).");
    Family capable("peergate_nic_pcie_link_max_width",
                   "gauge",
                   "Lanes the NIC's PCIe link can do: the smaller max_link_width of the card and "
                   "its port; below it is the doctor's nic_link_narrow.");
    for (const auto& link : policy::doctor::nic_pcie_links(facts.doctor)) {
        sample_link(link, {{"nic", link.lower.to_sysfs()}}, width, capable);
    }
    return width.text() + capable.text();
}

// Each examined GPU's nearest physical NICs (several where they tie) and the class of the
// path, as topo's "Nearest NIC" line gives them: GPUDirect RDMA wants PIX or PXB.
std::string nearest_nic_family(const ExportFacts& facts) {
    Family nearest(
        "peergate_gpu_nearest_nic_info",
        "gauge",
        "The NICs nearest each GPU in the PCIe tree and the path class (PIX, PXB, PHB, "
        "NODE, SYS as nvidia-smi topo -m names them; NCCL_NET_GDR_LEVEL counts in them).");
    const auto gpus = examined_gpus(facts);
    const auto affinity = examined_nic_affinity(facts, gpus);
    for (std::size_t p = 0; p < gpus.size(); ++p) {
        for (const std::size_t n : policy::placement::nearest_nics(affinity, p)) {
            const auto& nic = affinity.nics[n];
            nearest.sample({{"gpu", std::to_string(gpus[p].index)},
                            {"nic", nic.path.device.to_sysfs()},
                            {"rdma_device", util::join(nic.rdma_devices, ",")},
                            {"path", affinity.labels[n][p].to_token()}},
                           1);
        }
    }
    return nearest.text();
}

// Each examined GPU on an NVSwitch fabric: its registration, whether it is usable, and
// whether the fabric reports it degraded. GPUs outside a fabric have no sample.
std::string nvswitch_fabric_families(const ExportFacts& facts) {
    Family info("peergate_gpu_nvswitch_fabric_info",
                "gauge",
                "The GPU's registration with the NVSwitch fabric as NVML reports it: state "
                "(not_started, in_progress, completed, unknown), status (nvmlReturn_t, 0 "
                "success), clique_id, cluster_uuid.");
    Family registered("peergate_gpu_nvswitch_fabric_registered",
                      "gauge",
                      "1 when the fabric registered the GPU (completed, status 0); 0 is the "
                      "doctor's nvswitch_fabric_not_ready: CUDA refuses to start on the node.");
    Family degraded("peergate_gpu_nvswitch_fabric_degraded",
                    "gauge",
                    "1 when the fabric's health mask says degraded bandwidth or unhealthy "
                    "routes (the doctor's nvswitch_fabric_degraded), else 0.");
    for (const auto& gpu : examined_gpus(facts)) {
        const auto found = facts.doctor.fabric.find(gpu.index);
        if (found == facts.doctor.fabric.end()) {
            continue;
        }
        const auto& fabric = found->second;
        const Labels labels{{"gpu", std::to_string(gpu.index)}};
        info.sample({{"gpu", std::to_string(gpu.index)},
                     {"state", std::string(model::to_string(fabric.state))},
                     {"status", std::to_string(fabric.status)},
                     {"clique_id", std::to_string(fabric.clique_id)},
                     {"cluster_uuid", fabric.cluster_uuid}},
                    1);
        registered.sample(labels, fabric.ready() ? 1 : 0);
        degraded.sample(labels, fabric.bandwidth_degraded() || fabric.route_unhealthy() ? 1 : 0);
    }
    return info.text() + registered.text() + degraded.text();
}

// Each examined GPU NVML gives a MIG mode (data-center GPUs from Ampere on).
std::string mig_family(const ExportFacts& facts) {
    Family enabled("peergate_gpu_mig_enabled",
                   "gauge",
                   "1 when the GPU is in MIG mode (the doctor's mig_enabled: no peer access "
                   "between MIG instances), else 0.");
    for (const auto& gpu : examined_gpus(facts)) {
        if (const auto mig = facts.doctor.mig.find(gpu.index); mig != facts.doctor.mig.end()) {
            enabled.sample({{"gpu", std::to_string(gpu.index)}}, mig->second.enabled ? 1 : 0);
        }
    }
    return enabled.text();
}

}  // namespace

std::string prometheus_hardware_families(const ExportFacts& facts) {
    return prometheus_nvlink_families(facts) + nvswitch_fabric_families(facts) + mig_family(facts) +
           pcie_link_families(facts) + pcie_aer_family(facts) + nic_family(facts) +
           nic_link_families(facts) + nic_aer_family(facts) + nearest_nic_family(facts);
}

}  // namespace peergate::report::exports
