// SPDX-License-Identifier: Apache-2.0
#include "sources/nvml/nvml_throughput.hpp"

#include "sources/nvml/nvml_field_values.hpp"

#include <fmt/format.h>

namespace peergate::nvml {

namespace {

std::optional<int> index_at(const NvmlRecord& record, const model::PciAddress& pci) {
    for (const auto& gpu : record.gpus) {
        if (gpu.identity.pci == pci) {
            return gpu.identity.index;
        }
    }
    return std::nullopt;
}

model::WatchedGpu watched_gpu(const NvmlRecord& record, const RecordedGpu& gpu) {
    model::WatchedGpu out{.index = gpu.identity.index,
                          .name = gpu.identity.name,
                          .pci = gpu.identity.pci.value_or(model::PciAddress{}),
                          .links = {}};
    for (const auto& link : gpu.links) {
        if (!link.active) {
            continue;
        }
        out.links.push_back(model::WatchedLink{.link = link.link,
                                               .to_switch = link.to_switch,
                                               .peer = link.to_switch || !link.remote
                                                           ? std::nullopt
                                                           : index_at(record, *link.remote)});
    }
    return out;
}

nvmlFieldValue_t field(unsigned id, unsigned scope) {
    nvmlFieldValue_t value{};
    value.fieldId = id;
    value.scopeId = scope;
    return value;
}

// Why the first field that did not answer did not, as NVML says it.
std::string missing_reason(NvmlCalls& nvml, const std::vector<nvmlFieldValue_t>& values) {
    for (const auto& value : values) {
        if (value.nvmlReturn != NVML_SUCCESS) {
            return describe_nvml_error(nvml.api(), value.nvmlReturn, "the NVLink throughput field");
        }
        if (!field_count(value)) {
            return fmt::format("the NVLink throughput field has value type {}",
                               static_cast<int>(value.valueType));
        }
    }
    return "";
}

void read_nvlink(NvmlCalls& nvml,
                 nvmlDevice_t device,
                 const model::WatchedGpu& gpu,
                 model::GpuCounterReading& out) {
    if (gpu.links.empty()) {
        out.nvlink_missing = "no active NVLink";
        return;
    }
    if (nvml.api().nvmlDeviceGetFieldValues == nullptr) {
        out.nvlink_missing = "this NVML has no nvmlDeviceGetFieldValues";
        return;
    }
    std::vector<nvmlFieldValue_t> values;
    for (const auto& link : gpu.links) {
        values.push_back(
            field(NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX, static_cast<unsigned>(link.link)));
        values.push_back(
            field(NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX, static_cast<unsigned>(link.link)));
    }
    values.push_back(field(NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX, PEERGATE_NVML_SCOPE_ALL_LINKS));
    values.push_back(field(NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX, PEERGATE_NVML_SCOPE_ALL_LINKS));
    const auto rc = nvml(nvml.api().nvmlDeviceGetFieldValues,
                         device,
                         static_cast<int>(values.size()),
                         values.data());
    if (rc != NVML_SUCCESS) {
        out.nvlink_missing = describe_nvml_error(nvml.api(), rc, "nvmlDeviceGetFieldValues");
        return;
    }
    for (std::size_t l = 0; l < gpu.links.size(); ++l) {
        out.links.push_back(model::LinkCounterReading{.link = gpu.links[l].link,
                                                      .tx_kib = field_count(values[2 * l]),
                                                      .rx_kib = field_count(values[2 * l + 1])});
    }
    out.sum_tx_kib = field_count(values[values.size() - 2]);
    out.sum_rx_kib = field_count(values.back());
    out.nvlink_missing = missing_reason(nvml, values);
}

void read_pcie(NvmlCalls& nvml, nvmlDevice_t device, model::GpuCounterReading& out) {
    if (nvml.api().nvmlDeviceGetPcieThroughput == nullptr) {
        out.pcie_missing = "this NVML has no nvmlDeviceGetPcieThroughput";
        return;
    }
    unsigned tx = 0;
    unsigned rx = 0;
    auto rc = nvml(nvml.api().nvmlDeviceGetPcieThroughput, device, NVML_PCIE_UTIL_TX_BYTES, &tx);
    if (rc == NVML_SUCCESS) {
        rc = nvml(nvml.api().nvmlDeviceGetPcieThroughput, device, NVML_PCIE_UTIL_RX_BYTES, &rx);
    }
    if (rc != NVML_SUCCESS) {
        out.pcie_missing = describe_nvml_error(nvml.api(), rc, "nvmlDeviceGetPcieThroughput");
        return;
    }
    out.pcie_tx_kb_per_s = tx;
    out.pcie_rx_kb_per_s = rx;
}

}  // namespace

std::vector<model::WatchedGpu> watched_gpus(const NvmlRecord& record,
                                            const std::vector<int>& indices) {
    std::vector<model::WatchedGpu> out;
    for (const int index : indices) {
        for (const auto& gpu : record.gpus) {
            if (gpu.identity.index == index) {
                out.push_back(watched_gpu(record, gpu));
            }
        }
    }
    return out;
}

model::GpuCounterReading read_gpu_counters(NvmlCalls& nvml,
                                           nvmlDevice_t device,
                                           const model::WatchedGpu& gpu) {
    model::GpuCounterReading out;
    read_nvlink(nvml, device, gpu, out);
    read_pcie(nvml, device, out);
    return out;
}

}  // namespace peergate::nvml
