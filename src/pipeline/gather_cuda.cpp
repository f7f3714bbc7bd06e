// SPDX-License-Identifier: Apache-2.0
// gather's CUDA step: the driver's version, what cuDeviceCanAccessPeer says per ordered pair
// and whether each GPU supports DMA-BUF, so a replayed machine's CUDA driver answers as the
// real one did (a field report's "CUDA says OK" is half of the silent-drop signature).
#include "pipeline/gather_cuda.hpp"

#include "pipeline/cuda_setup.hpp"
#include "sources/cuda/cuda_devices.hpp"
#include "sources/cuda/watched_run.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <optional>

namespace peergate::pipeline {

namespace {

// Each machine GPU's CUDA ordinal, by PCI bus id; empty when one is missing.
std::vector<int> ordinals_by_bus_id(const snapshot::MachineFile& machine,
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

// What the driver says of the GPUs in machine order: cuDeviceCanAccessPeer per ordered pair
// (0 on the diagonal) and DMA-BUF support per GPU.
struct CudaAnswers {
    std::vector<std::vector<int>> peers;
    std::vector<std::optional<bool>> dma_buf;
};

CudaAnswers ask_driver(const sources::cuda::CudaApi& api, const std::vector<int>& ordinals) {
    const std::size_t n = ordinals.size();
    CudaAnswers out{.peers = std::vector<std::vector<int>>(n, std::vector<int>(n, 0)),
                    .dma_buf = {}};
    for (std::size_t p = 0; p < n; ++p) {
        for (std::size_t q = 0; q < n; ++q) {
            out.peers[p][q] =
                p != q && sources::cuda::can_access_peer(api, ordinals[p], ordinals[q]);
        }
        out.dma_buf.push_back(sources::cuda::dma_buf_supported(api, ordinals[p]));
    }
    return out;
}

// ask_driver under the watchdog; nullopt when the driver did not answer in time.
std::optional<CudaAnswers> answers_within(const DriverAndDevices& opened,
                                          const std::vector<int>& ordinals,
                                          std::chrono::milliseconds timeout) {
    auto answers = std::make_shared<CudaAnswers>();
    const auto driver = opened.first;
    const bool finished = sources::cuda::run_within(
        [answers, driver, ordinals] { *answers = ask_driver(driver->api, ordinals); }, timeout);
    return finished ? std::optional<CudaAnswers>(*answers) : std::nullopt;
}

}  // namespace

void gather_from_cuda(const Context& ctx, GatherState& state) {
    auto opened = open_and_list(ctx.seams, state.driver_watchdog);
    if (!opened) {
        state.notes.push_back("CUDA driver answers not recorded: " + opened.error().message);
        state.cuda_open_status = opened.error().vendor_status;
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
    auto answers = answers_within(*opened, ordinals, state.driver_watchdog);
    if (!answers) {
        state.notes.push_back(
            "cuDeviceCanAccessPeer did not answer within the watchdog: not recorded");
        return;
    }
    m.cuda_can_access_peer = std::move(answers->peers);
    for (std::size_t p = 0; p < m.gpus.size() && p < answers->dma_buf.size(); ++p) {
        m.gpus[p].cuda_dma_buf = answers->dma_buf[p];
    }
}

}  // namespace peergate::pipeline
