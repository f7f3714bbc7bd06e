// SPDX-License-Identifier: Apache-2.0
#include "pipeline/cuda_setup.hpp"

#include "sources/cuda/cuda_devices.hpp"
#include "sources/cuda/watched_run.hpp"
#include "util/strings.hpp"

#include <fmt/format.h>

namespace peergate::pipeline {

// cuInit and the device queries run under the watchdog too: a hung driver blocks in them.
util::Expected<DriverAndDevices> open_and_list(const util::Seams& seams,
                                               std::chrono::milliseconds timeout) {
    auto shared = std::make_shared<util::Expected<DriverAndDevices>>(
        util::unexpected(util::ErrorCode::internal, "not run"));
    const bool finished = sources::cuda::run_within(
        [shared, path = seams.cuda_library, machine = seams.simulated_machine] {
            auto driver = sources::cuda::open_cuda_driver(path, machine);
            if (!driver) {
                *shared = util::unexpected(driver.error());
                return;
            }
            auto devices = sources::cuda::enumerate_devices((*driver)->api);
            if (!devices) {
                *shared = util::unexpected(devices.error());
                return;
            }
            *shared = DriverAndDevices{*driver, std::move(*devices)};
        },
        timeout);
    if (!finished) {
        return util::unexpected(
            util::ErrorCode::timeout,
            fmt::format("watchdog: the CUDA driver did not answer cuInit or the "
                        "device queries within {} s",
                        std::chrono::duration<double>(timeout).count()));
    }
    return std::move(*shared);
}

util::Expected<CudaSetup> set_up_cuda(const Context& ctx,
                                      const model::Discovery& discovery,
                                      const std::vector<int>& selection,
                                      std::chrono::milliseconds timeout) {
    auto opened = open_and_list(ctx.seams, timeout);
    if (!opened) {
        return util::unexpected(opened.error());
    }
    std::vector<model::Gpu> known;
    if (const model::Topology* described = discovery.described()) {
        known = described->gpus;  // identities only: which index each CUDA device is
    }
    auto map = engine::map_devices(opened->second, known);
    if (!map) {
        return util::unexpected(map.error());
    }
    auto selected = engine::select_devices(*map, selection);
    if (!selected) {
        return util::unexpected(selected.error());
    }
    return CudaSetup{
        .driver = opened->first, .map = std::move(*map), .selected = std::move(*selected)};
}

std::vector<int> indices_of(const std::vector<engine::MappedDevice>& devices) {
    std::vector<int> out;
    for (const auto& d : devices) {
        out.push_back(d.index);
    }
    return out;
}

std::vector<int> ordinals_of(const std::vector<engine::MappedDevice>& devices) {
    std::vector<int> out;
    for (const auto& d : devices) {
        out.push_back(d.ordinal);
    }
    return out;
}

}  // namespace peergate::pipeline
