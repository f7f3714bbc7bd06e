// SPDX-License-Identifier: Apache-2.0
// What probe and bench share: open the CUDA driver (under a watchdog), list its devices,
// name them by nvidia-smi index (PCI bus id against the topology tiers, else PCI bus
// order) and pick the selection.
#pragma once

#include "engine/device_map.hpp"
#include "model/discovery.hpp"
#include "pipeline/context.hpp"
#include "sources/cuda/cuda_api.hpp"
#include "util/expected.hpp"
#include "util/seams.hpp"

#include <chrono>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace peergate::pipeline {

struct CudaSetup {
    std::shared_ptr<sources::cuda::CudaDriver> driver;
    engine::DeviceMap map;
    std::vector<engine::MappedDevice> selected;  // in selection order
};

using DriverAndDevices =
    std::pair<std::shared_ptr<sources::cuda::CudaDriver>, std::vector<engine::DeviceIdentity>>;

// Opens the driver at seams.cuda_library (told seams.simulated_machine under a simulation) and
// lists its devices, cuInit included, on a worker that is abandoned past `timeout` (a hung
// driver blocks in cuInit).
util::Expected<DriverAndDevices> open_and_list(const util::Seams& seams,
                                               std::chrono::milliseconds timeout);

// Opens the driver at ctx.seams.cuda_library, maps its devices with `discovery`'s GPUs
// and selects `selection` (empty = all). Errors say why the probe cannot run.
util::Expected<CudaSetup> set_up_cuda(const Context& ctx,
                                      const model::Discovery& discovery,
                                      const std::vector<int>& selection,
                                      std::chrono::milliseconds timeout);

// The smi indices of the selection.
std::vector<int> indices_of(const std::vector<engine::MappedDevice>& devices);
// Their CUDA ordinals.
std::vector<int> ordinals_of(const std::vector<engine::MappedDevice>& devices);

}  // namespace peergate::pipeline
