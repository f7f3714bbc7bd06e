// SPDX-License-Identifier: Apache-2.0
#include "report/doctor/json.hpp"

#include "policy/doctor/gpu_nic.hpp"
#include "policy/doctor/pcie_aer.hpp"
#include "policy/doctor/pcie_link.hpp"
#include "report/doctor/gpu_modes.hpp"
#include "report/probe/json.hpp"
#include "report/topology/json.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

namespace peergate::report::doctor {

namespace {

using Json = nlohmann::ordered_json;

Json parts_to_json(const std::vector<policy::doctor::PartStatus>& parts) {
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
                {"kernel_cmdline", host.kernel_cmdline},
                {"peer_memory_module",
                 host.peer_memory_module ? Json(*host.peer_memory_module) : Json(nullptr)},
                {"nvidia_kernel_module",
                 host.nvidia_module
                     ? Json{{"flavour", std::string(model::to_string(host.nvidia_module->flavour))},
                            {"version", host.nvidia_module->version}}
                     : Json(nullptr)},
                {"kernel_release",
                 host.kernel_release.empty() ? Json(nullptr) : Json(host.kernel_release)}};
}

const char* kernel_event_kind(model::KernelEventKind kind) {
    switch (kind) {
        case model::KernelEventKind::xid:
            return "xid";
        case model::KernelEventKind::fallen_off_bus:
            return "fallen_off_bus";
        case model::KernelEventKind::dmar_fault:
            return "dmar_fault";
        case model::KernelEventKind::amd_vi_fault:
            return "amd_vi_fault";
        case model::KernelEventKind::pcie_aer:
            return "pcie_aer";
        case model::KernelEventKind::sxid:
            return "sxid";
    }
    return "unknown";
}

// A PCIe AER report: severity "corrected", "nonfatal" or "fatal", as the kernel names it.
Json aer_to_json(const model::AerReport& aer) {
    const char* severity = aer.severity == model::AerSeverity::corrected              ? "corrected"
                           : aer.severity == model::AerSeverity::uncorrected_nonfatal ? "nonfatal"
                                                                                      : "fatal";
    return Json{{"severity", severity},
                {"layer", aer.layer.empty() ? Json(nullptr) : Json(aer.layer)},
                {"errors", aer.errors},
                {"port", aer.port ? Json(aer.port->to_nvml()) : Json(nullptr)}};
}

Json kernel_events_to_json(const std::vector<model::KernelEvent>& events) {
    Json out = Json::array();
    for (const auto& e : events) {
        Json event{{"kind", kernel_event_kind(e.kind)},
                   {"pci_bus_id", e.device ? Json(e.device->to_nvml()) : Json(nullptr)},
                   {"xid", e.xid ? Json(*e.xid) : Json(nullptr)},
                   {"count", e.count},
                   {"suppressed", e.suppressed},
                   {"line", e.line}};
        if (e.aer) {
            event["aer"] = aer_to_json(*e.aer);
        }
        if (e.sxid) {
            event["sxid"] =
                Json{{"number", e.sxid->number},
                     {"fatal", e.sxid->fatal ? Json(*e.sxid->fatal) : Json(nullptr)},
                     {"links", e.sxid->links},
                     {"description",
                      e.sxid->description.empty() ? Json(nullptr) : Json(e.sxid->description)}};
        }
        out.push_back(std::move(event));
    }
    return out;
}

// {"ce": "ok", "sm-store": "data_lost", ...}; null where the probe did not run.
Json probe_paths_json(const policy::doctor::PairLayers& pair) {
    if (pair.probe_paths.empty()) {
        return nullptr;
    }
    Json paths = Json::object();
    for (const auto& v : pair.probe_paths) {
        paths[std::string(model::to_string(v.path))] = model::to_string(v.verdict);
    }
    return paths;
}

Json pair_to_json(const policy::doctor::PairLayers& pair) {
    Json nvml = Json::object();
    for (std::size_t caps = 0; caps < policy::doctor::kP2pCaps.size(); ++caps) {
        const auto& token = pair.nvml[caps];
        nvml[std::string(policy::doctor::kP2pCaps[caps])] =
            token.empty() ? Json(nullptr) : Json(token);
    }
    return Json{{"src", pair.src},
                {"dst", pair.dst},
                {"topology", pair.label.empty() ? Json(nullptr) : Json(pair.label)},
                {"nvml_p2p", nvml},
                {"cuda_can_access_peer",
                 pair.cuda_can_access_peer ? Json(*pair.cuda_can_access_peer) : Json(nullptr)},
                {"probe", pair.probe.empty() ? Json(nullptr) : Json(pair.probe)},
                {"probe_path", pair.probe_path.empty() ? Json(nullptr) : Json(pair.probe_path)},
                {"probe_gbps", pair.probe_gbps ? Json(*pair.probe_gbps) : Json(nullptr)},
                {"probe_paths", probe_paths_json(pair)},
                {"acs", pair.acs.empty() ? Json(nullptr) : Json(pair.acs)},
                {"p2p_gbps", pair.p2p_gbps ? Json(*pair.p2p_gbps) : Json(nullptr)},
                {"staged_gbps", pair.staged_gbps ? Json(*pair.staged_gbps) : Json(nullptr)}};
}

// The active links whose error counters are not all zero: each count, null where NVML did
// not answer; a link left out counts no errors.
Json link_errors_to_json(const std::vector<model::LinkErrors>& links) {
    Json out = Json::array();
    for (const auto& link : links) {
        if (link.counts.none_counted()) {
            continue;
        }
        const auto& counts = link.counts.value;
        Json entry{{"link", link.link}};
        for (std::size_t k = 0; k < model::kNvlinkCounters; ++k) {
            entry[std::string(model::kNvlinkCounterNames[k])] =
                counts[k] ? Json(*counts[k]) : Json(nullptr);
        }
        out.push_back(entry);
    }
    return out;
}

// Per GPU NVML could walk: its link indices, how many are up, which are down, the links
// counting errors, and with --probe the same read again after it.
Json links_to_json(const std::vector<policy::doctor::GpuLinks>& links,
                   const std::vector<policy::doctor::GpuLinks>& after_probe) {
    Json out = Json::array();
    for (const auto& gpu : links) {
        Json entry{{"gpu", gpu.gpu},
                   {"slots", gpu.slots},
                   {"up", gpu.up()},
                   {"down", gpu.down},
                   {"to_switch", gpu.to_switch},
                   {"errors", link_errors_to_json(gpu.errors)}};
        const auto after = std::find_if(
            after_probe.begin(), after_probe.end(), [&](const policy::doctor::GpuLinks& g) {
                return g.gpu == gpu.gpu;
            });
        if (after != after_probe.end()) {
            entry["errors_after_probe"] = link_errors_to_json(after->errors);
        }
        out.push_back(entry);
    }
    return out;
}

// A link's ends under `lower_key` and `upper_key`, the GPUs whose traffic crosses it (a GPU
// path's links only), then its widths and speeds.
Json link_to_json(const policy::doctor::PcieLinkState& link,
                  const char* lower_key,
                  const char* upper_key) {
    const auto width = [](const std::optional<int>& w) { return w ? Json(*w) : Json(nullptr); };
    const auto text = [](const std::string& t) { return t.empty() ? Json(nullptr) : Json(t); };
    Json out{{lower_key, link.lower.to_sysfs()}, {upper_key, link.upper.to_sysfs()}};
    if (!link.gpus.empty()) {
        out["gpus"] = link.gpus;
    }
    out["width"] = width(link.width);
    out["capable_width"] = width(link.capable);
    out["speed"] = text(link.speed);
    out["max_speed"] = text(link.max_speed);
    return out;
}

// Every PCIe link between the examined GPUs and their root complexes, as sysfs shows it.
Json pcie_links_to_json(const policy::doctor::DoctorInput& input) {
    Json out = Json::array();
    const auto* topology = input.discovery.described();
    if (topology == nullptr) {
        return out;
    }
    for (const auto& link : policy::doctor::pcie_links(input, *topology)) {
        out.push_back(link_to_json(link, "lower", "upper"));
    }
    return out;
}

// Each physical NIC's own link: the card and the port it plugs into.
Json nic_links_to_json(const policy::doctor::DoctorInput& input) {
    Json out = Json::array();
    for (const auto& link : policy::doctor::nic_pcie_links(input)) {
        out.push_back(link_to_json(link, "nic", "port"));
    }
    return out;
}

// A device's three AER totals, null for a file that could not be read.
Json aer_totals(const model::PciAer& aer) {
    const auto total = [](const std::optional<model::AerCounters>& file) {
        return file ? Json(file->sum()) : Json(nullptr);
    };
    return Json{{"correctable", total(aer.correctable)},
                {"nonfatal", total(aer.nonfatal)},
                {"fatal", total(aer.fatal)}};
}

// The named AER counts above zero, by file.
Json aer_errors(const model::PciAer& aer) {
    Json out = Json::object();
    for (const auto& [key, file] : {std::pair{"correctable", &aer.correctable},
                                    std::pair{"nonfatal", &aer.nonfatal},
                                    std::pair{"fatal", &aer.fatal}}) {
        for (const auto& [name, count] : *file ? (*file)->counts : model::AerCounters{}.counts) {
            if (count > 0) {
                out[key][name] = count;
            }
        }
    }
    return out;
}

// Every device on the examined GPUs' paths whose AER counters were read.
Json pcie_aer_to_json(const policy::doctor::DoctorInput& input) {
    Json out = Json::array();
    const auto* topology = input.discovery.described();
    if (topology == nullptr) {
        return out;
    }
    for (const auto& [device, gpus] : policy::doctor::gpus_through(input, *topology)) {
        const auto aer = input.aer.find(device);
        if (aer == input.aer.end()) {
            continue;
        }
        Json entry = aer_totals(aer->second);
        entry["device"] = device.to_sysfs();
        entry["gpus"] = gpus;
        entry["errors"] = aer_errors(aer->second);
        if (const auto after = input.aer_after_probe.find(device);
            after != input.aer_after_probe.end()) {
            entry["after_probe"] = aer_totals(after->second);
        }
        out.push_back(entry);
    }
    return out;
}

Json dma_buf_of(const policy::doctor::DoctorInput& input, int gpu) {
    const auto answer = input.dma_buf.find(gpu);
    return answer == input.dma_buf.end() ? Json(nullptr) : Json(answer->second);
}

// Each examined GPU with each network function below the same PCIe port, and where ACS
// sends their GPUDirect RDMA.
Json gpu_nics_to_json(const policy::doctor::DoctorInput& input) {
    Json out = Json::array();
    for (const auto& path : policy::doctor::gpu_nic_paths(input)) {
        out.push_back(Json{{"gpu", path.gpu},
                           {"nic", path.nic.to_sysfs()},
                           {"shared_port", path.path.shared->to_sysfs()},
                           {"acs", std::string(to_string(path.path.state))},
                           {"dma_buf", dma_buf_of(input, path.gpu)}});
    }
    return out;
}

Json pairs_to_json(const policy::doctor::DoctorInput& input) {
    Json pairs = Json::array();
    for (const auto& pair : input.pairs) {
        pairs.push_back(pair_to_json(pair));
    }
    return Json{{"gpus", input.selection.empty() ? Json("all") : Json(input.selection)},
                {"pairs", pairs},
                {"nvlinks", links_to_json(input.links, input.links_after_probe)},
                {"pcie_links", pcie_links_to_json(input)},
                {"nic_links", nic_links_to_json(input)},
                {"nvswitch_fabric", nvswitch_fabric_to_json(input)},
                {"mig", mig_to_json(input)},
                {"pcie_aer", pcie_aer_to_json(input)},
                {"gpu_nics", gpu_nics_to_json(input)},
                {"notes", input.layer_notes}};
}

// The assessment (policy/assess): the node's state, the host's silent-drop risk, the probe
// evidence and each ordered pair's state with the paths tested and where the verdict came from.
Json assessment_to_json(const policy::assess::Assessment& a) {
    Json pairs = Json::array();
    for (const auto& pair : a.pairs) {
        Json tested = Json::array();
        for (const auto& path : pair.paths) {
            tested.push_back(Json{{"path", model::to_string(path.path)},
                                  {"verdict", model::to_string(path.verdict)}});
        }
        pairs.push_back(Json{{"src", pair.src},
                             {"dst", pair.dst},
                             {"state", policy::assess::id(pair.state)},
                             {"probe_source", policy::assess::id(pair.probe)},
                             {"paths_tested", tested}});
    }
    return Json{
        {"node",
         Json{{"state", policy::doctor::to_string(a.node.state)},
              {"usable", policy::doctor::usable(a.node.state)},
              {"code", a.node.code},
              {"reason", a.node.reason}}},
        {"silent_drop_risk", policy::assess::id(a.host.silent_drop.risk)},
        {"probe",
         Json{{"source", policy::assess::id(a.probe.source)},
              {"result",
               a.probe.outcome ? Json(model::to_string(*a.probe.outcome)) : Json(nullptr)}}},
        {"pairs", pairs}};
}

}  // namespace

Json finding_to_json(const model::Finding& finding) {
    Json out{{"code", finding.id()},
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

Json doctor_to_json(const policy::doctor::DoctorInput& input,
                    const policy::doctor::DoctorReport& report,
                    const policy::assess::Assessment& assessment) {
    Json doc;
    doc["schema"] = "peergate.doctor/v1";
    doc["verdict"] = std::string(to_string(report.verdict));
    Json layers;
    layers["runtime"] = parts_to_json(input.parts);
    layers["host"] = host_to_json(input.host);
    layers["topology"] = report::topology::topology_to_json(input.discovery);
    layers["kernel_log"] = Json{{"source", input.kernel_log_source},
                                {"events", kernel_events_to_json(input.kernel_events)}};
    layers["peer_access"] = pairs_to_json(input);
    layers["probe"] = input.probe ? report::probe::probe_to_json(*input.probe) : Json(nullptr);
    doc["layers"] = layers;
    Json findings = Json::array();
    for (const auto& finding : report.findings) {
        findings.push_back(finding_to_json(finding));
    }
    doc["findings"] = findings;
    doc["assessment"] = assessment_to_json(assessment);
    return doc;
}

}  // namespace peergate::report::doctor
