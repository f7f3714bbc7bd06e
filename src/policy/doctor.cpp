// SPDX-License-Identifier: Apache-2.0
#include "policy/doctor.hpp"

#include "policy/doctor_pairs.hpp"
#include "policy/kernel_findings.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace peergate::policy {

namespace {

using model::Finding;
using model::Severity;

bool any_part_found(const DoctorInput& input) {
    return std::any_of(
        input.parts.begin(), input.parts.end(), [](const PartStatus& p) { return p.found; });
}

Finding no_driver_finding(const DoctorInput& input) {
    std::string looked;
    for (const auto& part : input.parts) {
        looked += fmt::format("\n  {}: {}", part.what, part.detail);
    }
    std::string remedy =
        "Install the NVIDIA driver (it provides libnvidia-ml.so.1, libcuda.so.1 and nvidia-smi), "
        "or "
        "point peergate at them with --nvml-lib, --cuda-lib and --nvidia-smi.";
    if (!input.simulate_hint.empty()) {
        remedy += fmt::format(
            " To see what peergate reports on a GPU machine: peergate --simulate {} doctor",
            input.simulate_hint);
    }
    return Finding{
        .code = "no_nvidia_driver",
        .severity = Severity::info,
        .message =
            "No NVIDIA driver found on this host, so there is nothing to test, and GPU "
            "peer-to-peer stays off: peergate enables it only on a confirmed NVLink path or "
            "on data it moved and compared. Looked for:" +
            looked,
        .remedy = remedy};
}

bool examined(const DoctorInput& input, int gpu) {
    return input.selection.empty() ||
           std::binary_search(input.selection.begin(), input.selection.end(), gpu);
}

// PCIe pairs on bare metal with a translating IOMMU: the silent-drop configuration. Pairs
// the CUDA driver refuses peer access to are safe: their copies are staged through host
// memory.
std::optional<Finding> pcie_under_iommu(const DoctorInput& input, const model::Topology& t) {
    const auto& host = input.host;
    if (host.iommu != model::IommuMode::translating || host.hypervisor.value_or(false)) {
        return std::nullopt;
    }
    std::vector<std::pair<int, int>> risky;
    std::vector<int> gpus;
    std::string example;
    for (std::size_t p = 0; p < t.size(); ++p) {
        for (std::size_t q = p + 1; q < t.size(); ++q) {
            const int a = t.gpus[p].index;
            const int b = t.gpus[q].index;
            if (t.matrix[p][q].is_nvlink() || !examined(input, a) || !examined(input, b) ||
                peer_access_refused(input.pairs, a, b)) {
                continue;
            }
            risky.emplace_back(a, b);
            gpus.insert(gpus.end(), {a, b});
            if (example.empty()) {
                example = fmt::format("GPU {} to GPU {} is {}", a, b, t.matrix[p][q].to_token());
            }
        }
    }
    if (risky.empty()) {
        return std::nullopt;
    }
    std::sort(gpus.begin(), gpus.end());
    gpus.erase(std::unique(gpus.begin(), gpus.end()), gpus.end());
    return Finding{
        .code = "pcie_p2p_under_translating_iommu",
        .severity = Severity::error,
        .gpus = gpus,
        .message = example + ", not NVLink; bare-metal Linux with a translating IOMMU (" +
                   host.iommu_detail + "), where PCIe peer copies can be silently dropped" +
                   capability_claims(input.pairs, risky),
        .remedy =
            "Keep GGML_CUDA_P2P unset (GGML_CUDA_P2P=0 turns it ON), run 'peergate probe' to "
            "test the pairs, or boot with iommu=pt (or intel_iommu=off / amd_iommu=off)."};
}

// The verdict the runtime, topology and host allow, before the kernel log is considered.
DoctorReport diagnose_fabric(const DoctorInput& input) {
    DoctorReport report;
    if (!any_part_found(input)) {
        report.findings.push_back(no_driver_finding(input));
        return report;  // inconclusive: nothing could be asked
    }
    const model::Topology* topology = input.discovery.described();
    if (topology == nullptr) {
        report.findings.push_back(Finding{
            .code = "topology_unreadable",
            .severity = Severity::error,
            .message = "The NVIDIA driver is present but no interconnect matrix could be read: " +
                       input.discovery.reason + ". P2P stays off.",
            .remedy =
                "Run 'nvidia-smi topo -m' by hand; a driver/library version mismatch or a hung GPU "
                "shows there."});
        return report;
    }
    if (topology->size() < 2 || input.selection.size() == 1) {
        report.findings.push_back(Finding{
            .code = "single_gpu",
            .severity = Severity::info,
            .message = topology->size() < 2
                           ? "One GPU: there is no peer-to-peer traffic to gate."
                           : "One GPU selected: there is no peer-to-peer traffic to gate."});
        report.verdict = Verdict::healthy;
        return report;
    }
    if (auto finding = pcie_under_iommu(input, *topology)) {
        report.findings.push_back(std::move(*finding));
        report.verdict = Verdict::problems;
        return report;
    }
    report.verdict = Verdict::healthy;
    return report;
}

bool has_error(const std::vector<Finding>& findings) {
    return std::any_of(findings.begin(), findings.end(), [](const Finding& f) {
        return f.severity == Severity::error;
    });
}

// Kernel-log findings about GPUs outside --gpus are left out; those naming none stay.
std::vector<Finding> about_examined(const DoctorInput& input, std::vector<Finding> findings) {
    std::erase_if(findings, [&](const Finding& f) {
        return !f.gpus.empty() && std::none_of(f.gpus.begin(), f.gpus.end(), [&](int gpu) {
            return examined(input, gpu);
        });
    });
    return findings;
}

}  // namespace

std::string_view to_string(Verdict verdict) {
    switch (verdict) {
        case Verdict::healthy:
            return "healthy";
        case Verdict::problems:
            return "problems";
        case Verdict::inconclusive:
            return "inconclusive";
    }
    return "inconclusive";
}

int exit_status(Verdict verdict) {
    switch (verdict) {
        case Verdict::healthy:
            return 0;
        case Verdict::problems:
            return 1;
        case Verdict::inconclusive:
            return 2;
    }
    return 2;
}

DoctorReport diagnose(const DoctorInput& input) {
    DoctorReport report = diagnose_fabric(input);
    auto pairs = pair_findings(input.pairs);
    report.findings.insert(report.findings.end(), pairs.begin(), pairs.end());
    const model::Topology* topology = input.discovery.described();
    const auto kernel = about_examined(input, kernel_findings(input.kernel_events, topology));
    report.findings.insert(report.findings.end(), kernel.begin(), kernel.end());
    // A GPU fallen off the bus is a problem even when nothing else answered.
    if (has_error(kernel)) {
        report.verdict = Verdict::problems;
    }
    return report;
}

}  // namespace peergate::policy
