// SPDX-License-Identifier: Apache-2.0
// The traffic counters `peergate watch` samples: per active NVLink the data TX/RX fields
// (NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_*, KiB since the driver loaded) with their sum over
// every link, and the PCIe TX/RX rate (nvmlDeviceGetPcieThroughput). What NVML does not answer
// stays absent, with its reason (docs/driver-facts.md "Traffic counters").
#pragma once

#include "model/link_traffic.hpp"
#include "sources/nvml/nvml_calls.hpp"
#include "sources/nvml/nvml_record.hpp"

#include <vector>

namespace peergate::nvml {

// The GPUs of `record` whose index is in `indices`, in that order, each with its active
// links and their far ends (a GPU of the record is named by its index). An index the record
// lacks is left out.
std::vector<model::WatchedGpu> watched_gpus(const NvmlRecord& record,
                                            const std::vector<int>& indices);

// One round's reading of one GPU: one nvmlDeviceGetFieldValues call for every link's fields
// and the sums, then two PCIe calls (each waits 20 ms in a real driver).
model::GpuCounterReading read_gpu_counters(NvmlCalls& nvml,
                                           nvmlDevice_t device,
                                           const model::WatchedGpu& gpu);

}  // namespace peergate::nvml
