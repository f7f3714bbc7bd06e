// SPDX-License-Identifier: Apache-2.0
#include "policy/doctor.hpp"

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

// PCIe pairs on bare metal with a translating IOMMU: the silent-drop configuration.
std::optional<Finding> pcie_under_iommu(const model::Topology& t, const model::HostFacts& host) {
    if (host.iommu != model::IommuMode::translating || host.hypervisor.value_or(false)) {
        return std::nullopt;
    }
    std::vector<int> gpus;
    std::string example;
    for (std::size_t p = 0; p < t.size(); ++p) {
        for (std::size_t q = p + 1; q < t.size(); ++q) {
            if (!t.matrix[p][q].is_nvlink()) {
                gpus.push_back(t.gpus[p].index);
                gpus.push_back(t.gpus[q].index);
                if (example.empty()) {
                    example = fmt::format("GPU {} to GPU {} is {}",
                                          t.gpus[p].index,
                                          t.gpus[q].index,
                                          t.matrix[p][q].to_token());
                }
            }
        }
    }
    if (gpus.empty()) {
        return std::nullopt;
    }
    std::sort(gpus.begin(), gpus.end());
    gpus.erase(std::unique(gpus.begin(), gpus.end()), gpus.end());
    return Finding{
        .code = "pcie_p2p_under_translating_iommu",
        .severity = Severity::error,
        .gpus = gpus,
        .message = example + ", not NVLink; bare-metal Linux with a translating IOMMU (" +
                   host.iommu_detail + "), where PCIe peer copies can be silently dropped",
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
    if (topology->size() < 2) {
        report.findings.push_back(
            Finding{.code = "single_gpu",
                    .severity = Severity::info,
                    .message = "One GPU: there is no peer-to-peer traffic to gate."});
        report.verdict = Verdict::healthy;
        return report;
    }
    if (auto finding = pcie_under_iommu(*topology, input.host)) {
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
    const model::Topology* topology = input.discovery.described();
    auto kernel = kernel_findings(input.kernel_events, topology);
    report.findings.insert(report.findings.end(), kernel.begin(), kernel.end());
    if (has_error(
            kernel)) {  // a GPU fallen off the bus is a problem even when nothing else answered
        report.verdict = Verdict::problems;
    }
    return report;
}

}  // namespace peergate::policy
