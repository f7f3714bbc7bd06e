// SPDX-License-Identifier: Apache-2.0
#include "policy/doctor/pcie_aer.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace peergate::policy::doctor {

namespace {

using model::AerCounters;
using model::Finding;
using model::PciAddress;
using model::PciAer;
using model::Severity;

struct Kind {
    std::string_view word;
    std::optional<AerCounters> PciAer::*file;
    bool uncorrectable;
};

constexpr std::array<Kind, 3> kKinds{{{"fatal", &PciAer::fatal, true},
                                      {"non-fatal", &PciAer::nonfatal, true},
                                      {"correctable", &PciAer::correctable, false}}};

bool counts_any(const PciAer& aer, bool uncorrectable_only) {
    return std::any_of(kKinds.begin(), kKinds.end(), [&](const Kind& kind) {
        const auto& file = aer.*kind.file;
        return (kind.uncorrectable || !uncorrectable_only) && file && file->sum() > 0;
    });
}

// "2 Unsupported Request, 1 ACS Violation" (the kernel's names), or the file's total when no
// named count is above zero.
std::string named_counts(const AerCounters& counters, std::string_view sign) {
    std::vector<std::string> parts;
    for (const auto& [name, count] : counters.counts) {
        if (count > 0) {
            parts.push_back(fmt::format("{}{} {}", sign, count, name));
        }
    }
    if (parts.empty()) {
        parts.push_back(fmt::format("{}{} error messages", sign, counters.sum()));
    }
    return fmt::format("{}", fmt::join(parts, ", "));
}

// "non-fatal: 2 Unsupported Request; correctable: 40 Bad TLP".
std::string describe(const PciAer& aer, std::string_view sign) {
    std::vector<std::string> parts;
    for (const auto& kind : kKinds) {
        if (const auto& file = aer.*kind.file; file && file->sum() > 0) {
            parts.push_back(fmt::format("{}: {}", kind.word, named_counts(*file, sign)));
        }
    }
    return fmt::format("{}", fmt::join(parts, "; "));
}

// What each count gained from `before` to `after`; one that fell (a reset) gained nothing.
AerCounters gained(const AerCounters& before, const AerCounters& after) {
    AerCounters out;
    for (const auto& now : after.counts) {
        const auto then = std::find_if(before.counts.begin(),
                                       before.counts.end(),
                                       [&](const auto& entry) { return entry.first == now.first; });
        const std::uint64_t base = then == before.counts.end() ? 0 : then->second;
        if (now.second > base) {
            out.counts.emplace_back(now.first, now.second - base);
        }
    }
    const auto a = before.sum();
    const auto b = after.sum();
    out.total = b > a ? b - a : 0;
    return out;
}

PciAer growth(const PciAer& before, const PciAer& after) {
    PciAer out;
    for (const auto& kind : kKinds) {
        if ((before.*kind.file) && (after.*kind.file)) {
            out.*kind.file = gained(*(before.*kind.file), *(after.*kind.file));
        }
    }
    return out;
}

std::string where(const PciAddress& device,
                  const std::vector<int>& gpus,
                  const model::Topology& topology) {
    for (const auto& gpu : topology.gpus) {
        if (gpu.pci == device) {
            return fmt::format("GPU {} ({})", gpu.index, device.to_sysfs());
        }
    }
    return fmt::format("the PCIe port {} above GPU{} {}",
                       device.to_sysfs(),
                       gpus.size() == 1 ? "" : "s",
                       fmt::join(gpus, ", "));
}

Finding standing_finding(const std::string& at, const std::vector<int>& gpus, const PciAer& aer) {
    const bool lossy = counts_any(aer, true);
    return Finding{
        .code = model::FindingCode::pcie_aer_errors,
        .severity = lossy ? Severity::warning : Severity::info,
        .gpus = gpus,
        .message = fmt::format(
            "{} counts PCIe errors since boot (AER): {}. {}",
            at,
            describe(aer, ""),
            lossy ? "An uncorrectable error can lose or poison a transfer."
                  : "Correctable errors are retried on the link: the data arrives, later."),
        .remedy =
            "Tell whether they grow under load: 'peergate doctor --probe' reads them before and "
            "after moving data, and the kernel log names each one ('AER:' lines; 'peergate "
            "doctor --kernel-log -'). Errors that grow mark a marginal link: reseat the card, "
            "riser or cable. Unsupported Request or ACS Violation (UnsupReq, ACSViol) at a "
            "port means it refused traffic routed through it."};
}

Finding load_finding(const std::string& at, const std::vector<int>& gpus, const PciAer& grown) {
    const bool lossy = counts_any(grown, true);
    return Finding{
        .code = model::FindingCode::pcie_aer_errors_under_load,
        .severity = lossy ? Severity::error : Severity::warning,
        .gpus = gpus,
        .message = fmt::format("While the probe moved data, the PCIe error counters of {} grew "
                               "(AER): {}.",
                               at,
                               describe(grown, "+")),
        .remedy = fmt::format(
            "{}Reseat the card, riser or cable on that path and read the kernel log's 'AER:' "
            "lines ('peergate doctor --kernel-log -'); a link that keeps counting errors under "
            "load is failing.",
            lossy ? fmt::format("Keep peer access off for GPU{} {} until the path is repaired "
                                "(GGML_CUDA_P2P unset, NCCL_P2P_DISABLE=1). ",
                                gpus.size() == 1 ? "" : "s",
                                fmt::join(gpus, ", "))
                  : std::string())};
}

Finding nic_finding(const model::Nic& nic, const PciAer& aer) {
    const bool lossy = counts_any(aer, true);
    return Finding{
        .code = model::FindingCode::nic_aer_errors,
        .severity = lossy ? Severity::warning : Severity::info,
        .gpus = {},
        .message = fmt::format(
            "NIC {}{} counts PCIe errors since boot (AER): {}. {}",
            nic.path.device.to_sysfs(),
            nic.rdma_devices.empty() ? "" : fmt::format(" ({})", fmt::join(nic.rdma_devices, ",")),
            describe(aer, ""),
            lossy ? "An uncorrectable error can lose or poison a transfer: NCCL's IB transport "
                    "sees it as a completion error or a timeout."
                  : "Correctable errors are retried on the link: the data arrives, later."),
        .remedy =
            "Read the kernel log's 'AER:' lines for the card ('peergate doctor "
            "--kernel-log -') and run it again after a job: errors that keep growing mark "
            "a marginal link; reseat the card, riser or cable."};
}

bool by_gpus(const Finding& a, const Finding& b) {
    return a.gpus < b.gpus;
}

}  // namespace

std::map<PciAddress, std::vector<int>> gpus_through(const DoctorInput& input,
                                                    const model::Topology& topology) {
    std::map<PciAddress, std::vector<int>> out;
    for (const auto& [index, ports] : input.ports) {
        const auto position = topology.position_of(index);
        if (!position || !topology.gpus[*position].pci) {
            continue;
        }
        out[*topology.gpus[*position].pci].push_back(index);
        for (const auto& port : ports) {
            out[port.address].push_back(index);
        }
    }
    for (auto& [device, gpus] : out) {
        std::sort(gpus.begin(), gpus.end());
    }
    return out;
}

std::vector<Finding> pcie_aer_findings(const DoctorInput& input, const model::Topology& topology) {
    std::vector<Finding> out;
    for (const auto& [device, gpus] : gpus_through(input, topology)) {
        const auto aer = input.aer.find(device);
        if (aer != input.aer.end() && counts_any(aer->second, false)) {
            out.push_back(standing_finding(where(device, gpus, topology), gpus, aer->second));
        }
    }
    std::stable_sort(out.begin(), out.end(), by_gpus);
    return out;
}

std::vector<Finding> nic_aer_findings(const DoctorInput& input) {
    std::vector<Finding> out;
    for (const auto& nic : input.nics) {
        const auto aer = input.aer.find(nic.path.device);
        if (!nic.physical_function && aer != input.aer.end() && counts_any(aer->second, false)) {
            out.push_back(nic_finding(nic, aer->second));
        }
    }
    return out;
}

std::vector<Finding> pcie_aer_under_load_findings(const DoctorInput& input,
                                                  const model::Topology& topology) {
    std::vector<Finding> out;
    for (const auto& [device, gpus] : gpus_through(input, topology)) {
        const auto before = input.aer.find(device);
        const auto after = input.aer_after_probe.find(device);
        if (before == input.aer.end() || after == input.aer_after_probe.end()) {
            continue;
        }
        if (const auto grown = growth(before->second, after->second); counts_any(grown, false)) {
            out.push_back(load_finding(where(device, gpus, topology), gpus, grown));
        }
    }
    std::stable_sort(out.begin(), out.end(), by_gpus);
    return out;
}

}  // namespace peergate::policy::doctor
