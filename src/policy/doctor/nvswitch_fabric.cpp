// SPDX-License-Identifier: Apache-2.0
#include "policy/doctor/nvswitch_fabric.hpp"

#include "model/gpu.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <tuple>

namespace peergate::policy::doctor {

namespace {

using model::FabricState;
using model::Finding;
using model::GpuFabric;
using model::Severity;

const char* const kCheck =
    "Check with `nvidia-smi -q | grep -A 3 Fabric` (State Completed, Status Success on every "
    "GPU) and `journalctl -u nvidia-fabricmanager`.";

// "(package nvidia-fabricmanager-580, version 580.95.05)", where the driver's is known.
std::string package_of(const std::string& driver_version) {
    const auto dot = driver_version.find('.');
    return dot == std::string::npos ? std::string()
                                    : fmt::format(" (package nvidia-fabricmanager-{}, version {})",
                                                  driver_version.substr(0, dot),
                                                  driver_version);
}

std::string start_remedy(const std::string& driver_version) {
    return fmt::format(
        "Run the fabric manager of the driver's exact version{}: `systemctl enable --now "
        "nvidia-fabricmanager`; on NVLink5 baseboards (B200, B300) the NVLink subnet manager "
        "(nvlsm) must run too, which the fabric manager's start script starts. {}",
        package_of(driver_version),
        kCheck);
}

// What is wrong with one GPU's registration, and what to do; nullopt when it is ready.
struct Trouble {
    std::string what;
    std::string remedy;

    auto key() const { return std::tie(what, remedy); }

    bool operator<(const Trouble& other) const { return key() < other.key(); }
};

std::optional<Trouble> trouble_of(const GpuFabric& fabric, const std::string& driver_version) {
    switch (fabric.state) {
        case FabricState::not_supported:
            return std::nullopt;
        case FabricState::not_started:
            return Trouble{
                "not registered with the NVSwitch fabric (state Not Started): no "
                "fabric manager has run since the driver loaded",
                start_remedy(driver_version)};
        case FabricState::in_progress:
            return Trouble{
                "still registering with the NVSwitch fabric (state In Progress): the fabric "
                "manager is not running, has not finished, or (NVLink5) has no NVLink subnet "
                "manager",
                start_remedy(driver_version) +
                    " Under shared-NVSwitch virtualisation (FABRIC_MODE=1) a GPU stays In "
                    "Progress until a partition holding it is activated."};
        case FabricState::unknown:
            return Trouble{
                "in a fabric state this peergate does not know, so not taken as "
                "registered",
                kCheck};
        case FabricState::completed:
            break;
    }
    if (fabric.status == 0) {
        return std::nullopt;
    }
    return Trouble{
        fmt::format("registered with the NVSwitch fabric but with failure status {} "
                    "(nvmlReturn_t)",
                    fabric.status),
        fmt::format("The fabric manager's log (journalctl -u nvidia-fabricmanager, "
                    "/var/log/fabricmanager.log) names the failed GPU or switch; restarting it "
                    "or resetting the GPUs (nvidia-smi -r) registers them again. {}",
                    kCheck)};
}

std::optional<Finding> degraded_finding(const std::map<int, GpuFabric>& fabric) {
    std::vector<int> gpus;
    for (const auto& [gpu, registration] : fabric) {
        if (registration.ready() &&
            (registration.bandwidth_degraded() || registration.route_unhealthy())) {
            gpus.push_back(gpu);
        }
    }
    if (gpus.empty()) {
        return std::nullopt;
    }
    return Finding{
        .code = model::FindingCode::nvswitch_fabric_degraded,
        .severity = Severity::warning,
        .gpus = gpus,
        .message = fmt::format("{}: the NVSwitch fabric reports degraded bandwidth or unhealthy "
                               "routes; NVLink traffic still flows, slower than the baseboard's "
                               "full bandwidth",
                               model::gpu_words(gpus)),
        .remedy =
            "`nvidia-smi -q` shows the fabric's health per GPU and `nvidia-smi nvlink "
            "--status` the links; the fabric manager's log names the failed link or "
            "switch. A reset of the GPUs and switches, or a repair, restores it."};
}

// CUDA_ERROR_SYSTEM_NOT_READY: what cuInit answers until every GPU is registered.
constexpr int kCudaSystemNotReady = 802;

Finding cuda_not_ready_finding(const std::string& driver_version) {
    return Finding{
        .code = model::FindingCode::nvswitch_fabric_not_ready,
        .severity = Severity::error,
        .gpus = {},
        .message =
            "The CUDA driver refuses to start: cuInit answered CUDA_ERROR_SYSTEM_NOT_READY "
            "(802, \"system not yet initialized\"), the answer of an NVSwitch baseboard "
            "whose fabric manager has not registered the GPUs; NVML gives these GPUs no "
            "fabric state (it does from Hopper on), so which GPUs is not known. Nothing, "
            "P2P over NVLink included, runs until it has",
        .remedy = start_remedy(driver_version)};
}

}  // namespace

std::vector<Finding> nvswitch_fabric_findings(const std::map<int, GpuFabric>& fabric,
                                              const std::string& driver_version,
                                              int cuda_open_status) {
    std::map<Trouble, std::vector<int>> troubled;
    for (const auto& [gpu, registration] : fabric) {
        if (auto trouble = trouble_of(registration, driver_version)) {
            troubled[*trouble].push_back(gpu);
        }
    }
    std::vector<Finding> out;
    for (const auto& [trouble, gpus] : troubled) {
        out.push_back(Finding{
            .code = model::FindingCode::nvswitch_fabric_not_ready,
            .severity = Severity::error,
            .gpus = gpus,
            .message = fmt::format("{} {} {}; until registered the driver refuses CUDA work on "
                                   "{} (CUDA_ERROR_SYSTEM_NOT_READY, \"system not yet "
                                   "initialized\"), so no P2P over NVLink or anything else runs",
                                   model::gpu_words(gpus),
                                   gpus.size() == 1 ? "is" : "are",
                                   trouble.what,
                                   gpus.size() == 1 ? "it" : "them"),
            .remedy = trouble.remedy});
    }
    std::sort(
        out.begin(), out.end(), [](const Finding& a, const Finding& b) { return a.gpus < b.gpus; });
    if (out.empty() && cuda_open_status == kCudaSystemNotReady) {
        out.push_back(cuda_not_ready_finding(driver_version));
    }
    if (auto degraded = degraded_finding(fabric)) {
        out.push_back(std::move(*degraded));
    }
    return out;
}

}  // namespace peergate::policy::doctor
