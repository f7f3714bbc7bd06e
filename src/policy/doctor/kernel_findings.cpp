// SPDX-License-Identifier: Apache-2.0
#include "policy/doctor/kernel_findings.hpp"

#include "policy/doctor/xid_catalogue.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <string_view>

namespace peergate::policy::doctor {

namespace {

using model::Finding;
using model::KernelEvent;
using model::KernelEventKind;
using model::Severity;

// nvidia-smi index of the GPU at `device`, comparing domain, bus and device only.
std::optional<int> gpu_at(const std::optional<model::PciAddress>& device,
                          const model::Topology* topology) {
    if (!device || topology == nullptr) {
        return std::nullopt;
    }
    for (const auto& gpu : topology->gpus) {
        if (gpu.pci && gpu.pci->domain == device->domain && gpu.pci->bus == device->bus &&
            gpu.pci->device == device->device) {
            return gpu.index;
        }
    }
    return std::nullopt;
}

std::string where(const KernelEvent& event, std::optional<int> gpu) {
    const std::string bus =
        event.device ? event.device->to_sysfs() : std::string("an unnamed device");
    return gpu ? fmt::format("GPU {} ({})", *gpu, bus) : bus;
}

std::string times(const KernelEvent& event) {
    std::string text = event.count == 1 ? "once" : fmt::format("{} times", event.count);
    if (event.suppressed > 0) {
        text += fmt::format(", and {} more suppressed by the kernel", event.suppressed);
    }
    return text;
}

// The action Xid 154 moves to ("GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset
// Required)"): None leaves nothing to do; Drain P2P, Drain and Reset, GPU Reset Required and
// Node Reboot Required mean the GPU cannot be trusted until it is done.
std::optional<std::string_view> recovery_action(std::string_view line) {
    const auto to = line.find(" to 0x");
    const auto open = to == std::string_view::npos ? to : line.find('(', to);
    const auto close = open == std::string_view::npos ? open : line.find(')', open);
    if (close == std::string_view::npos) {
        return std::nullopt;
    }
    return line.substr(open + 1, close - open - 1);
}

Finding xid_finding(const KernelEvent& event, std::optional<int> gpu) {
    const XidMeaning* m = xid_meaning(*event.xid);
    const auto action = *event.xid == 154 ? recovery_action(event.line) : std::nullopt;
    const Severity severity = action ? (*action == "None" ? Severity::info : Severity::error)
                              : m    ? m->severity
                                     : Severity::warning;
    Finding f{.code = model::FindingCode::xid,
              .severity = severity,
              .message = fmt::format("Xid {} on {} ({}): {}{}",
                                     *event.xid,
                                     where(event, gpu),
                                     times(event),
                                     m ? m->meaning : "see NVIDIA's Xid catalogue",
                                     action ? fmt::format("; now '{}'", *action) : ""),
              .remedy = m ? std::string(m->remedy) : "Look the Xid up in NVIDIA's Xid catalogue.",
              .xid = event.xid,
              .pci_bus_id = event.device ? event.device->to_nvml() : "",
              .line = event.line};
    return f;
}

Finding iommu_finding(const KernelEvent& event, std::optional<int> gpu) {
    const bool dmar = event.kind == KernelEventKind::dmar_fault;
    const std::string unit = dmar ? "Intel VT-d (DMAR)" : "AMD-Vi";
    if (!gpu) {
        return Finding{.code = dmar ? model::FindingCode::dmar_fault_other_device
                                    : model::FindingCode::amd_vi_fault_other_device,
                       .severity = Severity::info,
                       .message = fmt::format("{} IOMMU faults from {} ({}), not one of the GPUs",
                                              unit,
                                              where(event, gpu),
                                              times(event)),
                       .pci_bus_id = event.device ? event.device->to_nvml() : "",
                       .line = event.line};
    }
    return Finding{
        .code = dmar ? model::FindingCode::dmar_fault_gpu : model::FindingCode::amd_vi_fault_gpu,
        .severity = Severity::error,
        .gpus = {*gpu},
        .message =
            fmt::format("{} IOMMU faults from {} ({}): the IOMMU is rejecting this GPU's DMA, "
                        "the signature of PCIe peer writes that are silently dropped",
                        unit,
                        where(event, gpu),
                        times(event)),
        .remedy =
            "Keep GGML_CUDA_P2P unset (GGML_CUDA_P2P=0 turns it ON) and use NCCL_P2P_LEVEL=NVL; "
            "to use PCIe P2P boot with iommu=pt (or intel_iommu=off / amd_iommu=off) and re-run "
            "'peergate probe --mode all'.",
        .pci_bus_id = event.device ? event.device->to_nvml() : "",
        .line = event.line};
}

const char* aer_words(model::AerSeverity severity) {
    switch (severity) {
        case model::AerSeverity::corrected:
            return "corrected";
        case model::AerSeverity::uncorrected_nonfatal:
            return "uncorrected (non-fatal)";
        case model::AerSeverity::uncorrected_fatal:
            return "uncorrected (fatal)";
    }
    return "unknown";
}

std::string aer_details(const model::AerReport& aer) {
    std::string text = aer.layer.empty() ? std::string() : aer.layer;
    if (!aer.errors.empty()) {
        text += fmt::format("{}{}", text.empty() ? "" : ": ", fmt::join(aer.errors, ", "));
    }
    return text.empty() ? "" : fmt::format(" ({})", text);
}

// A PCIe AER report from the kernel log. Corrected errors are retries the link absorbed
// (a link degrading); uncorrected ones lost a transaction, and peer traffic over that link
// cannot be trusted. ACSViol is the ACS redirect rejecting a peer request.
Finding aer_finding(const KernelEvent& event,
                    std::optional<int> gpu,
                    const std::map<model::PciAddress, std::vector<int>>& through) {
    const auto& aer = *event.aer;
    std::vector<int> gpus = gpu ? std::vector<int>{*gpu} : std::vector<int>{};
    std::string place = where(event, gpu);
    if (const auto below = event.device ? through.find(*event.device) : through.end();
        !gpu && below != through.end()) {
        gpus = below->second;
        place = fmt::format("{}, on the path of GPU {}", place, fmt::join(gpus, ", "));
    }
    const bool corrected = aer.severity == model::AerSeverity::corrected;
    const auto code = corrected ? model::FindingCode::pcie_aer_logged_corrected
                      : aer.severity == model::AerSeverity::uncorrected_nonfatal
                          ? model::FindingCode::pcie_aer_logged_nonfatal
                          : model::FindingCode::pcie_aer_logged_fatal;
    const bool on_gpu_path = !gpus.empty();
    const Severity severity = !corrected ? (on_gpu_path ? Severity::error : Severity::warning)
                                         : (on_gpu_path ? Severity::warning : Severity::info);
    const std::string port = aer.port && aer.port != event.device
                                 ? fmt::format(", reported by port {}", aer.port->to_sysfs())
                                 : "";
    return Finding{
        .code = code,
        .severity = severity,
        .gpus = std::move(gpus),
        .message = fmt::format("PCIe AER: {} error{} on {}{} ({})",
                               aer_words(aer.severity),
                               aer_details(aer),
                               place,
                               port,
                               times(event)),
        .remedy = corrected
                      ? "The link retried and recovered; a count that grows under load is a "
                        "link about to fail: reseat the card and its riser, check the slot's "
                        "width and speed ('peergate doctor' pcie_link findings, lspci -vv)."
                      : "Transactions on this link were lost: keep PCIe P2P off for it "
                        "(GGML_CUDA_P2P unset, NCCL_P2P_LEVEL=NVL) until it is fixed; reseat, "
                        "check risers and power. ACSViol means ACS is rejecting peer requests "
                        "(see the acs findings).",
        .pci_bus_id = event.device ? event.device->to_nvml() : "",
        .line = event.line};
}

std::string sxid_details(const model::SxidReport& sxid) {
    std::string text = !sxid.fatal ? "severity not printed" : *sxid.fatal ? "fatal" : "non-fatal";
    if (!sxid.links.empty()) {
        text += fmt::format(
            ", {} {}", sxid.links.size() == 1 ? "link" : "links", fmt::join(sxid.links, ", "));
    }
    if (!sxid.description.empty()) {
        text += ": " + sxid.description;
    }
    return text;
}

// An NVSwitch error (SXid). A fatal one stops the switch's ports: NVLink traffic through the
// fabric fails until the switch and the GPUs are reset; a non-fatal one is retried by the
// switch and matters when it repeats (docs/driver-facts.md, "SXid: NVSwitch errors").
Finding sxid_finding(const KernelEvent& event) {
    const auto& sxid = *event.sxid;
    const bool fatal = sxid.fatal.value_or(false);
    return Finding{
        .code = model::FindingCode::sxid,
        .severity = fatal ? Severity::error : Severity::warning,
        .message = fmt::format("NVSwitch error SXid {} on the switch at {} ({}; {})",
                               sxid.number,
                               where(event, std::nullopt),
                               sxid_details(sxid),
                               times(event)),
        .remedy = fatal ? "NVLink traffic through this switch is lost until it is reset: drain "
                          "the node, stop the fabric manager, reset the GPUs and switches "
                          "(nvidia-smi -r) or reboot; check 'nvidia-smi nvlink -s' and the "
                          "fabric manager log; repeated on one link: service the baseboard."
                        : "The switch recovered; watch whether it repeats on the same link "
                          "('nvidia-smi nvlink -e', the fabric manager log).",
        .pci_bus_id = event.device ? event.device->to_nvml() : "",
        .line = event.line,
        .sxid = sxid.number};
}

// An Xid 79 line and the "has fallen off the bus" line after it are one event.
bool xid79_also_logged(const std::vector<KernelEvent>& events, const KernelEvent& fallen) {
    return std::any_of(events.begin(), events.end(), [&](const KernelEvent& e) {
        return e.kind == KernelEventKind::xid && e.xid == 79 && e.device == fallen.device;
    });
}

}  // namespace

std::vector<Finding> kernel_findings(const std::vector<KernelEvent>& events,
                                     const model::Topology* topology,
                                     const std::map<model::PciAddress, std::vector<int>>& through) {
    std::vector<Finding> findings;
    for (const auto& event : events) {
        // An NVSwitch is not a GPU, whatever its bus: never tie its SXid to one.
        const auto gpu =
            event.kind == KernelEventKind::sxid ? std::nullopt : gpu_at(event.device, topology);
        Finding f;
        switch (event.kind) {
            case KernelEventKind::xid:
                f = xid_finding(event, gpu);
                break;
            case KernelEventKind::fallen_off_bus: {
                if (xid79_also_logged(events, event)) {
                    continue;
                }
                KernelEvent as_xid = event;
                as_xid.xid = 79;
                f = xid_finding(as_xid, gpu);
                break;
            }
            case KernelEventKind::dmar_fault:
            case KernelEventKind::amd_vi_fault:
                f = iommu_finding(event, gpu);
                break;
            case KernelEventKind::pcie_aer:
                f = aer_finding(event, gpu, through);
                break;
            case KernelEventKind::sxid:
                f = sxid_finding(event);
                break;
        }
        if (gpu && f.gpus.empty()) {
            f.gpus = {*gpu};
        }
        findings.push_back(std::move(f));
    }
    return findings;
}

std::optional<model::Finding> kernel_log_truncated(std::uint64_t dropped_bytes) {
    if (dropped_bytes == 0) {
        return std::nullopt;
    }
    return model::Finding{
        .code = model::FindingCode::kernel_log_truncated,
        .severity = model::Severity::info,
        .message = fmt::format("the kernel log read from stdin was longer than peergate keeps: "
                               "its first {} bytes were read and dropped, so events in them are "
                               "not reported",
                               dropped_bytes),
        .remedy = "pass only the recent log (dmesg --since, journalctl -k --since)"};
}

}  // namespace peergate::policy::doctor
