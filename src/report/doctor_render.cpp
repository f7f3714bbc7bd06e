// SPDX-License-Identifier: Apache-2.0
#include "report/doctor_render.hpp"

#include "report/topology_json.hpp"
#include "report/topology_text.hpp"

#include <fmt/format.h>

namespace peergate::report {

namespace {

using Json = nlohmann::ordered_json;

Json parts_to_json(const std::vector<policy::PartStatus>& parts) {
    Json out = Json::array();
    for (const auto& part : parts) {
        out.push_back(Json{{"what", part.what}, {"found", part.found}, {"detail", part.detail}});
    }
    return out;
}

Json host_to_json(const model::HostFacts& host) {
    return Json{{"iommu", std::string(model::to_string(host.iommu))},
                {"iommu_detail", host.iommu_detail},
                {"hypervisor", host.hypervisor ? Json(*host.hypervisor) : Json(nullptr)},
                {"kernel_cmdline", host.kernel_cmdline}};
}

Json kernel_events_to_json(const std::vector<model::KernelEvent>& events) {
    Json out = Json::array();
    for (const auto& e : events) {
        const char* kind = e.kind == model::KernelEventKind::xid              ? "xid"
                           : e.kind == model::KernelEventKind::fallen_off_bus ? "fallen_off_bus"
                           : e.kind == model::KernelEventKind::dmar_fault     ? "dmar_fault"
                                                                              : "amd_vi_fault";
        out.push_back(Json{{"kind", kind},
                           {"pci_bus_id", e.device ? Json(e.device->to_nvml()) : Json(nullptr)},
                           {"xid", e.xid ? Json(*e.xid) : Json(nullptr)},
                           {"count", e.count},
                           {"suppressed", e.suppressed},
                           {"line", e.line}});
    }
    return out;
}

}  // namespace

Json finding_to_json(const model::Finding& finding) {
    Json out{{"code", finding.code},
             {"severity", std::string(model::to_string(finding.severity))},
             {"gpus", finding.gpus},
             {"message", finding.message},
             {"remedy", finding.remedy}};
    if (finding.xid) {
        out["xid"] = *finding.xid;
        out["pci_bus_id"] = finding.pci_bus_id;
        out["line"] = finding.line;
    }
    return out;
}

Json doctor_to_json(const policy::DoctorInput& input, const policy::DoctorReport& report) {
    Json doc;
    doc["schema"] = "peergate.doctor/v1";
    doc["verdict"] = std::string(policy::to_string(report.verdict));
    Json layers;
    layers["runtime"] = parts_to_json(input.parts);
    layers["host"] = host_to_json(input.host);
    layers["topology"] = topology_to_json(input.discovery);
    layers["kernel_log"] = Json{{"source", input.kernel_log_source},
                                {"events", kernel_events_to_json(input.kernel_events)}};
    doc["layers"] = layers;
    Json findings = Json::array();
    for (const auto& finding : report.findings) {
        findings.push_back(finding_to_json(finding));
    }
    doc["findings"] = findings;
    return doc;
}

std::string doctor_to_text(const policy::DoctorInput& input,
                           const policy::DoctorReport& report,
                           bool color) {
    std::string out = "peergate doctor\n\nRuntime:\n";
    for (const auto& part : input.parts) {
        out += fmt::format(
            "  {:<22} {}  {}\n", part.what, part.found ? "found  " : "missing", part.detail);
    }
    out += fmt::format("\nHost: IOMMU {} ({}), {}\n",
                       model::to_string(input.host.iommu),
                       input.host.iommu_detail,
                       !input.host.hypervisor   ? "hypervisor unknown"
                       : *input.host.hypervisor ? "virtual machine"
                                                : "bare metal");
    out += fmt::format(
        "Kernel log: {} ({} event groups)\n", input.kernel_log_source, input.kernel_events.size());
    if (input.discovery.topology || !input.discovery.attempts.empty()) {
        out += "\nTopology:\n" + topology_to_text(input.discovery, TextStyle{.color = color});
    }
    out += fmt::format("\nVerdict: {}\n", policy::to_string(report.verdict));
    for (const auto& finding : report.findings) {
        out += fmt::format(
            "\n[{}] {}: {}\n", model::to_string(finding.severity), finding.code, finding.message);
        if (!finding.remedy.empty()) {
            out += "  remedy: " + finding.remedy + "\n";
        }
    }
    return out;
}

}  // namespace peergate::report
