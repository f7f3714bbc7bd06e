// SPDX-License-Identifier: Apache-2.0
// gather's CUDA step: the driver's version and what cuDeviceCanAccessPeer says per ordered
// pair, so a replayed machine's CUDA driver answers as the real one did (a field report's
// "CUDA says OK" is half of the silent-drop signature).
#include "cli/cuda_setup.hpp"
#include "cli/gather_machine.hpp"
#include "sources/cuda/cuda_devices.hpp"
#include "sources/cuda/watched_run.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <memory>

namespace peergate::cli {

namespace {

// Each machine GPU's CUDA ordinal, by PCI bus id; empty when one is missing.
std::vector<int> ordinals_by_bus_id(const sim::MachineFile& machine,
                                    const std::vector<engine::DeviceIdentity>& devices) {
    std::vector<int> ordinals;
    for (const auto& gpu : machine.gpus) {
        const auto it =
            std::find_if(devices.begin(), devices.end(), [&](const engine::DeviceIdentity& d) {
                return d.pci == gpu.pci;
            });
        if (it == devices.end()) {
            return {};
        }
        ordinals.push_back(it->ordinal);
    }
    return ordinals;
}

// cuDeviceCanAccessPeer in machine order, 0 on the diagonal; empty past the watchdog.
std::vector<std::vector<int>> peer_matrix(const DriverAndDevices& opened,
                                          const std::vector<int>& ordinals,
                                          std::chrono::milliseconds timeout) {
    auto matrix = std::make_shared<std::vector<std::vector<int>>>();
    const auto driver = opened.first;
    const bool finished = sources::cuda::run_within(
        [matrix, driver, ordinals] {
            const std::size_t n = ordinals.size();
            std::vector<std::vector<int>> out(n, std::vector<int>(n, 0));
            for (std::size_t p = 0; p < n; ++p) {
                for (std::size_t q = 0; q < n; ++q) {
                    out[p][q] = p != q && sources::cuda::can_access_peer(
                                              driver->api, ordinals[p], ordinals[q]);
                }
            }
            *matrix = std::move(out);
        },
        timeout);
    return finished ? *matrix : std::vector<std::vector<int>>{};
}

}  // namespace

void gather_from_cuda(const Invocation& inv, GatherState& state) {
    auto opened = open_and_list(inv.seams.cuda_library, state.driver_watchdog);
    if (!opened) {
        state.notes.push_back("CUDA driver answers not recorded: " + opened.error().message);
        return;
    }
    auto& m = state.machine;
    m.cuda_driver_version = opened->first->driver_version;
    const auto ordinals = ordinals_by_bus_id(m, opened->second);
    if (ordinals.empty() && !m.gpus.empty()) {
        state.notes.push_back(
            fmt::format("the CUDA driver lists {} devices that nvidia-smi does not match by "
                        "PCI bus id: cuDeviceCanAccessPeer not recorded",
                        opened->second.size()));
        return;
    }
    auto matrix = peer_matrix(*opened, ordinals, state.driver_watchdog);
    if (matrix.empty() && !ordinals.empty()) {
        state.notes.push_back(
            "cuDeviceCanAccessPeer did not answer within the watchdog: not recorded");
        return;
    }
    m.cuda_can_access_peer = std::move(matrix);
}

}  // namespace peergate::cli
