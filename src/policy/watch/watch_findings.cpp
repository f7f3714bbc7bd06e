// SPDX-License-Identifier: Apache-2.0
#include "policy/watch/watch_findings.hpp"

#include "model/gpu.hpp"
#include "policy/doctor/nvlink_errors.hpp"
#include "policy/watch/traffic_units.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <tuple>

namespace peergate::policy::watch {

namespace {

using model::Finding;
using model::Severity;

// The gate allowed P2P for a pair that shares NVLink, and the job's data between them went
// over PCIe: NCCL or the launcher turned P2P off, or the job moved data through the host.
std::vector<Finding> unused_p2p(const std::vector<PairVerdict>& verdicts, const WatchFacts& facts) {
    std::vector<Finding> out;
    if (!facts.gated || !facts.p2p_allowed) {
        return out;
    }
    for (const auto& pair : verdicts) {
        if (pair.route == NvlinkRoute::none || pair.verdict != PathVerdict::pcie) {
            continue;
        }
        out.push_back(Finding{
            .code = model::FindingCode::watch_p2p_unused,
            .severity = Severity::warning,
            .gpus = {pair.a, pair.b},
            .message = fmt::format(
                "The gate allowed P2P for GPUs {} and {}, which share NVLink ({}), but the job "
                "moved data only over PCIe: {}.",
                pair.a,
                pair.b,
                to_string(pair.route),
                pair.reason),
            .remedy =
                "Look for what turned P2P off in the job: NCCL_P2P_DISABLE or NCCL_P2P_LEVEL in "
                "its environment, --disable-custom-all-reduce, a launcher that sets "
                "CUDA_VISIBLE_DEVICES again. Run it with NCCL_DEBUG=INFO and read the log with "
                "'peergate nccl-log'."});
    }
    return out;
}

bool moved(const GpuTotals& gpu) {
    return gpu.nvlink_bytes() >= kMovedNvlinkBytes || gpu.pcie_bytes() >= kMovedPcieBytes;
}

// Its counters answered and say nothing moved.
bool known_idle(const GpuTotals& gpu) {
    const bool nvlink_known = !gpu.has_nvlink || gpu.nvlink != NvlinkCounting::unavailable;
    return nvlink_known && gpu.pcie_known && !moved(gpu);
}

std::vector<Finding> idle_gpus(const TrafficTotals& totals) {
    std::vector<Finding> out;
    std::vector<int> busy;
    for (const auto& gpu : totals.gpus) {
        if (moved(gpu)) {
            busy.push_back(gpu.index);
        }
    }
    if (busy.empty()) {
        return out;
    }
    for (const auto& gpu : totals.gpus) {
        if (!known_idle(gpu)) {
            continue;
        }
        out.push_back(Finding{
            .code = model::FindingCode::watch_gpu_idle,
            .severity = Severity::warning,
            .gpus = {gpu.index},
            .message = fmt::format(
                "GPU {} ({}) moved nothing over NVLink or PCIe ({} and {}) while {} did: a rank "
                "that hung, fell back to another device, or was never given work.",
                gpu.index,
                gpu.name,
                bytes_text(gpu.nvlink_bytes()),
                bytes_text(gpu.pcie_bytes()),
                model::gpu_words(busy)),
            .remedy = fmt::format(
                "Check that the job really runs a rank on GPU {} (CUDA_VISIBLE_DEVICES, "
                "--tensor-parallel-size, the launcher's rank count) and look for a rank stuck "
                "in its first collective (NCCL_DEBUG=INFO).",
                gpu.index)});
    }
    return out;
}

std::vector<Finding> missing_counters(const TrafficTotals& totals) {
    std::vector<Finding> out;
    for (const auto& gpu : totals.gpus) {
        std::vector<std::string> missing;
        if (gpu.has_nvlink && gpu.nvlink == NvlinkCounting::unavailable) {
            missing.push_back("NVLink (" + gpu.nvlink_reason + ")");
        }
        if (!gpu.pcie_known) {
            missing.push_back("PCIe (" + gpu.pcie_reason + ")");
        }
        if (missing.empty()) {
            continue;
        }
        out.push_back(Finding{
            .code = model::FindingCode::watch_counters_unavailable,
            .severity = Severity::info,
            .gpus = {gpu.index},
            .message = fmt::format("NVML does not answer GPU {}'s traffic counters: {}. Its "
                                   "pairs' verdicts are unknown where those were needed.",
                                   gpu.index,
                                   fmt::join(missing, "; ")),
            .remedy = "'nvidia-smi nvlink -gt d' shows whether the driver counts NVLink data "
                      "(older drivers do not offer the throughput fields); PCIe throughput is "
                      "not offered inside vGPU guests."});
    }
    return out;
}

std::vector<Finding> stopped(const TrafficTotals& totals, const WatchFacts& facts) {
    if (!facts.sampling_error.empty()) {
        return {Finding{.code = model::FindingCode::watch_unavailable,
                        .severity = Severity::warning,
                        .gpus = {},
                        .message = "No traffic counter was read: " + facts.sampling_error +
                                   ". Every verdict is unknown.",
                        .remedy = "'peergate doctor' says whether NVML answers on this host."}};
    }
    if (facts.sampling_stopped.empty()) {
        return {};
    }
    return {Finding{
        .code = model::FindingCode::watch_sampling_stopped,
        .severity = Severity::warning,
        .gpus = {},
        .message = fmt::format("NVML stopped answering after {} rounds ({}): the verdicts cover "
                               "only the rounds read.",
                               totals.rounds,
                               facts.sampling_stopped),
        .remedy = "A driver that stops answering NVML is often a GPU fallen off the bus: look "
                  "for Xid 79 ('peergate doctor --kernel-log -') and check 'nvidia-smi'."}};
}

}  // namespace

std::vector<Finding> watch_findings(const TrafficTotals& totals,
                                    const std::vector<PairVerdict>& verdicts,
                                    const WatchFacts& facts) {
    std::vector<Finding> out = doctor::nvlink_errors_under_load_findings(
        facts.links_before, facts.links_after, facts.what_ran);
    for (auto&& part : {unused_p2p(verdicts, facts),
                        idle_gpus(totals),
                        missing_counters(totals),
                        stopped(totals, facts)}) {
        out.insert(out.end(), part.begin(), part.end());
    }
    // Severity's order is error, warning, info.
    std::stable_sort(out.begin(), out.end(), [](const Finding& a, const Finding& b) {
        return std::tie(a.severity, a.gpus) < std::tie(b.severity, b.gpus);
    });
    return out;
}

}  // namespace peergate::policy::watch
