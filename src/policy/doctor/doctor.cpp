// SPDX-License-Identifier: Apache-2.0
#include "policy/doctor/doctor.hpp"

#include "policy/doctor/acs.hpp"
#include "policy/doctor/driver_mismatch.hpp"
#include "policy/doctor/gpu_nic.hpp"
#include "policy/doctor/iommu.hpp"
#include "policy/doctor/kernel_findings.hpp"
#include "policy/doctor/mig.hpp"
#include "policy/doctor/nccl_topo.hpp"
#include "policy/doctor/nvlink.hpp"
#include "policy/doctor/nvlink_errors.hpp"
#include "policy/doctor/nvswitch_fabric.hpp"
#include "policy/doctor/pairs.hpp"
#include "policy/doctor/pcie_aer.hpp"
#include "policy/doctor/pcie_link.hpp"
#include "policy/doctor/probe.hpp"
#include "policy/doctor/vllm.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace peergate::policy::doctor {

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
            " To see what peergate reports on a GPU machine, integrity probe included: "
            "peergate --simulate {} doctor --probe",
            input.simulate_hint);
    }
    return Finding{
        .code = model::FindingCode::no_nvidia_driver,
        .severity = Severity::info,
        .message =
            "No NVIDIA driver found on this host, so there is nothing to test, and GPU "
            "peer-to-peer stays off: peergate enables it only on a confirmed NVLink path or "
            "on data it moved and compared. Looked for:" +
            looked,
        .remedy = remedy};
}

// The verdict the runtime, topology and host allow, before the kernel log is considered.
DoctorReport diagnose_fabric(const DoctorInput& input) {
    DoctorReport report;
    if (!any_part_found(input)) {
        report.findings.push_back(no_driver_finding(input));
        return report;  // inconclusive: nothing could be asked
    }
    const model::Topology* topology = input.discovery.described();
    if (auto mismatch = driver_mismatch_finding(input)) {
        report.findings.push_back(std::move(*mismatch));
        report.verdict = Verdict::problems;
        return report;  // nothing the driver said can be trusted until it matches
    }
    if (topology == nullptr) {
        report.findings.push_back(Finding{
            .code = model::FindingCode::topology_unreadable,
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
            .code = model::FindingCode::single_gpu,
            .severity = Severity::info,
            .message = topology->size() < 2
                           ? "One GPU: there is no peer-to-peer traffic to gate."
                           : "One GPU selected: there is no peer-to-peer traffic to gate."});
        report.verdict = Verdict::healthy;
        return report;
    }
    report.verdict = Verdict::healthy;
    if (auto finding = pcie_under_iommu(input, *topology)) {
        if (finding->severity == Severity::error) {
            report.verdict = Verdict::problems;
        }
        report.findings.push_back(std::move(*finding));
    }
    return report;
}

// What moved data says: the probe just run (--probe), else the verdict cache's from earlier
// on this boot.
std::optional<Finding> probe_evidence(const DoctorInput& input) {
    if (input.probe) {
        return probe_finding(*input.probe);
    }
    if (input.cached_probe) {
        return cached_probe_finding(
            *input.cached_probe, input.cached_probe_written_at, input.selection);
    }
    return std::nullopt;
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
            return is_examined(input, gpu);
        });
    });
    return findings;
}

}  // namespace

bool is_examined(const DoctorInput& input, int gpu) {
    return input.selection.empty() ||
           std::binary_search(input.selection.begin(), input.selection.end(), gpu);
}

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

// The GPUs examined, ascending: the selection, or every GPU described.
std::vector<int> examined_ids(const DoctorInput& input, const model::Topology& topology) {
    std::vector<int> ids;
    for (const auto& gpu : topology.gpus) {
        if (is_examined(input, gpu.index)) {
            ids.push_back(gpu.index);
        }
    }
    std::sort(ids.begin(), ids.end());
    return ids;
}

// Worst severity first and, within one severity, the strongest evidence first (the
// catalogue's Evidence: what peergate measured, then what a log recorded, what a layer
// reported, what is inferred), so the headline is a proven loss rather than the hypothesis
// that predicted it. Otherwise the order found is kept.
void order_by_strength(std::vector<Finding>& findings) {
    std::stable_sort(findings.begin(), findings.end(), [](const Finding& a, const Finding& b) {
        return std::pair(a.severity, model::meta(a.code).evidence) <
               std::pair(b.severity, model::meta(b.code).evidence);
    });
}

// Appends `findings`; an error among them makes the verdict `problems`.
void add_findings(std::vector<model::Finding> findings, DoctorReport& report) {
    for (auto& finding : findings) {
        if (finding.severity == Severity::error) {
            report.verdict = Verdict::problems;
        }
        report.findings.push_back(std::move(finding));
    }
}

void add_nccl_topo_findings(const DoctorInput& input,
                            const model::Topology& topology,
                            DoctorReport& report) {
    add_findings(nccl_topo_findings(input.nccl_topo_file,
                                    topology,
                                    examined_ids(input, topology),
                                    pcie_copies_at_risk(input.host)),
                 report);
}

// GPUDirect RDMA between the examined GPUs and the NICs below their switches: ACS on the
// path, and whether the host can map GPU memory for the NIC at all.
void add_gpu_nic_findings(const std::vector<GpuNicPath>& paths,
                          const DoctorInput& input,
                          DoctorReport& report) {
    for (auto finding :
         {acs_redirect_nic_finding(paths), peer_memory_finding(paths, input.host, input.dma_buf)}) {
        if (finding) {
            report.findings.push_back(std::move(*finding));
        }
    }
}

// The links themselves: NVLinks down, PCIe links trained narrow, and what the error
// counters of both count (with --probe, what the probe added to them).
void add_link_findings(const DoctorInput& input, DoctorReport& report) {
    add_findings(about_examined(input, nvlink_down_findings(input.links)), report);
    add_findings(about_examined(input, nvlink_error_findings(input.links)), report);
    // The probe's device time is how long it moved data between the two reads.
    add_findings(about_examined(input,
                                nvlink_errors_under_load_findings(
                                    input.links,
                                    input.links_after_probe,
                                    "the probe moved data",
                                    input.probe ? input.probe->device_s : std::nullopt)),
                 report);
    if (const auto* topology = input.discovery.described()) {
        add_findings(pcie_link_findings(pcie_links(input, *topology)), report);
        add_findings(nic_link_findings(nic_pcie_links(input), input.nics), report);
        add_findings(pcie_aer_findings(input, *topology), report);
        add_findings(nic_aer_findings(input), report);
        add_findings(pcie_aer_under_load_findings(input, *topology), report);
    }
}

// Whether the NVSwitch fabric has registered the GPUs, without which CUDA does not start.
void add_nvswitch_fabric_findings(const DoctorInput& input, DoctorReport& report) {
    const auto& module = input.host.nvidia_module;
    add_findings(
        about_examined(input,
                       nvswitch_fabric_findings(
                           input.fabric, module ? module->version : "", input.cuda_open_status)),
        report);
}

// MIG on the GPUs examined: their peer traffic goes through host memory.
void add_mig_findings(const DoctorInput& input, DoctorReport& report) {
    const auto* topology = input.discovery.described();
    if (topology == nullptr) {
        return;
    }
    const auto ids = examined_ids(input, *topology);
    std::map<int, model::MigMode> examined_mig;
    for (const int id : ids) {
        if (const auto mig = input.mig.find(id); mig != input.mig.end()) {
            examined_mig.insert(*mig);
        }
    }
    add_findings(mig_findings(examined_mig, ids.size()), report);
}

DoctorReport diagnose(const DoctorInput& input) {
    DoctorReport report = diagnose_fabric(input);
    auto pairs = pair_findings(input.pairs);
    report.findings.insert(report.findings.end(), pairs.begin(), pairs.end());
    add_nvswitch_fabric_findings(input, report);
    add_mig_findings(input, report);
    add_link_findings(input, report);
    if (auto acs = acs_redirect_finding(input)) {
        report.findings.push_back(std::move(*acs));
    }
    add_gpu_nic_findings(gpu_nic_paths(input), input, report);
    if (auto probe = probe_evidence(input)) {
        if (probe->severity == Severity::error) {
            report.verdict = Verdict::problems;  // data lost is a problem whatever else said
        }
        report.findings.push_back(std::move(*probe));
    }
    if (auto vllm = p2p_cache_finding(kVllmCache, input.vllm_p2p_caches, report.findings)) {
        report.findings.push_back(std::move(*vllm));
    }
    if (auto sglang = p2p_cache_finding(kSglangCache, input.sglang_p2p_caches, report.findings)) {
        report.findings.push_back(std::move(*sglang));
    }
    const model::Topology* topology = input.discovery.described();
    if (topology != nullptr) {
        add_nccl_topo_findings(input, *topology, report);
    }
    const auto kernel = about_examined(
        input,
        kernel_findings(input.kernel_events,
                        topology,
                        topology != nullptr ? gpus_through(input, *topology)
                                            : std::map<model::PciAddress, std::vector<int>>{}));
    report.findings.insert(report.findings.end(), kernel.begin(), kernel.end());
    if (auto truncated = kernel_log_truncated(input.kernel_log_dropped_bytes)) {
        report.findings.push_back(std::move(*truncated));
    }
    // A GPU fallen off the bus is a problem even when nothing else answered.
    if (has_error(kernel)) {
        report.verdict = Verdict::problems;
    }
    order_by_strength(report.findings);
    return report;
}

}  // namespace peergate::policy::doctor
