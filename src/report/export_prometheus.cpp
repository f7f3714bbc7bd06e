// SPDX-License-Identifier: Apache-2.0
#include "report/export_prometheus.hpp"

#include "model/finding.hpp"
#include "policy/doctor_pcie_aer.hpp"
#include "policy/doctor_pcie_link.hpp"
#include "util/strings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <map>
#include <system_error>
#include <utility>
#include <vector>

namespace peergate::report {

namespace {

using Labels = std::vector<std::pair<std::string, std::string>>;

constexpr std::string_view kLastSuccess = "peergate_last_success_timestamp_seconds";

std::string escape_help(std::string_view text) {
    std::string out;
    for (char c : text) {
        out += c == '\\' ? std::string("\\\\") : c == '\n' ? std::string("\\n") : std::string(1, c);
    }
    return out;
}

// One family's lines, HELP and TYPE first: appending a whole family at a time keeps every
// family contiguous, which the format requires.
class Family {
public:
    Family(std::string name, std::string_view type, std::string_view help)
        : text_(fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, escape_help(help), name, type)),
          name_(std::move(name)) {}

    void sample(const Labels& labels, double value) {
        ++samples_;
        text_ += name_;
        if (!labels.empty()) {
            std::vector<std::string> parts;
            for (const auto& [key, label_value] : labels) {
                parts.push_back(fmt::format("{}=\"{}\"", key, prometheus_label_value(label_value)));
            }
            text_ += "{" + util::join(parts, ",") + "}";
        }
        text_ += fmt::format(" {}\n", value);
    }

    // "" for a family without samples (a machine of one GPU has no pairs): node_exporter
    // drops such families, and a reader has nothing to learn from them.
    std::string text() const { return samples_ > 0 ? text_ : ""; }

private:
    std::string text_;
    std::string name_;
    int samples_ = 0;
};

Labels pair_labels(int src, int dst) {
    return {{"gpu", std::to_string(src)}, {"peer_gpu", std::to_string(dst)}};
}

// NVML's P2P status codes as DCGM's exporter names them (nvmlGpuP2PStatus_t order), keyed by
// nvidia-smi's topo -p2p token.
struct StatusWord {
    std::string_view token;
    std::string_view word;
    int code;
};

constexpr std::array<StatusWord, 7> kStatusWords{{{"OK", "OK", 0},
                                                  {"CNS", "ChipsetNotSupported", 1},
                                                  {"GNS", "GPUNotSupported", 2},
                                                  {"TNS", "TopologyNotSupported", 3},
                                                  {"DR", "DisabledByRegKey", 4},
                                                  {"NS", "NotSupported", 5},
                                                  {"U", "Unknown", 6}}};

const StatusWord* status_word(std::string_view token) {
    for (const auto& word : kStatusWords) {
        if (word.token == token) {
            return &word;
        }
    }
    return nullptr;
}

std::string identity_families(const ExportFacts& facts) {
    Family info("peergate_info", "gauge", "Build information for peergate.");
    const auto& module = facts.doctor.host.nvidia_module;
    const int cuda = facts.doctor.cuda_driver_version;
    info.sample(
        {{"version", facts.run.version},
         {"driver_version", module ? module->version : ""},
         {"cuda_version", cuda > 0 ? fmt::format("{}.{}", cuda / 1000, cuda % 1000 / 10) : ""}},
        1);
    Family gpus("peergate_gpu_info", "gauge", "Static GPU identity as seen by peergate.");
    for (const auto& gpu : examined_gpus(facts)) {
        gpus.sample({{"gpu", std::to_string(gpu.index)},
                     {"UUID", gpu.uuid},
                     {"pci_bus_id", gpu.pci ? gpu.pci->to_nvml() : ""},
                     {"model_name", gpu.name},
                     {"numa_node", gpu.numa_node ? std::to_string(*gpu.numa_node) : ""}},
                    1);
    }
    return info.text() + gpus.text();
}

// NVML's link walk of each GPU examined; GPUs it could not walk are not listed.
std::vector<const policy::GpuLinks*> examined_links(const ExportFacts& facts) {
    const auto gpus = examined_gpus(facts);
    std::vector<const policy::GpuLinks*> out;
    for (const auto& links : facts.doctor.links) {
        if (std::any_of(gpus.begin(), gpus.end(), [&](const model::Gpu& gpu) {
                return gpu.index == links.gpu;
            })) {
            out.push_back(&links);
        }
    }
    return out;
}

// What NVML's link walk found on each GPU examined; GPUs it could not walk have no sample.
std::string gpu_link_families(const ExportFacts& facts) {
    Family slots("peergate_gpu_nvlink_slots",
                 "gauge",
                 "NVLink indices NVML answers for on the GPU (18 on H100 and B200, 0 without).");
    Family up("peergate_gpu_nvlinks_up",
              "gauge",
              "NVLinks NVML reports active on the GPU; fewer than its model's usual is the "
              "doctor's nvlink_down.");
    for (const auto* links : examined_links(facts)) {
        slots.sample({{"gpu", std::to_string(links->gpu)}}, links->slots);
        up.sample({{"gpu", std::to_string(links->gpu)}}, links->up());
    }
    return slots.text() + up.text();
}

// Each examined GPU's NVLink error counters, summed over its active links, by counter; a
// counter no link answered for has no sample. DCGM's exporter ships them commented out.
std::string nvlink_error_family(const ExportFacts& facts) {
    Family errors("peergate_gpu_nvlink_errors_total",
                  "counter",
                  "NVLink errors since the driver loaded, summed over the GPU's active links: "
                  "replay (a flit resent after a CRC error), recovery (the link retrained), "
                  "crc_flit, crc_data; on NVLink5 link_recovery_events (the link retrained), "
                  "effective_errors (left after forward error correction).");
    for (const auto* links : examined_links(facts)) {
        for (std::size_t k = 0; k < model::kNvlinkCounters; ++k) {
            std::optional<std::uint64_t> sum;
            for (const auto& link : links->errors) {
                if (const auto& n = link.counts.value[k]) {
                    sum = sum.value_or(0) + *n;
                }
            }
            if (sum) {
                errors.sample({{"gpu", std::to_string(links->gpu)},
                               {"counter", std::string(model::kNvlinkCounterNames[k])}},
                              static_cast<double>(*sum));
            }
        }
    }
    return errors.text();
}

// Each examined GPU's own PCIe link: the lanes it trained at and the most both ends can do.
std::string pcie_link_families(const ExportFacts& facts) {
    Family width("peergate_gpu_pcie_link_width",
                 "gauge",
                 "Lanes the GPU's PCIe link trained at (sysfs current_link_width).");
    Family capable("peergate_gpu_pcie_link_max_width",
                   "gauge",
                   "Lanes the GPU's PCIe link can do: the smaller max_link_width of the GPU and "
                   "its port; below it is the doctor's pcie_link_narrow.");
    const auto* topology = facts.doctor.discovery.described();
    if (topology == nullptr) {
        return "";
    }
    for (const auto& link : policy::pcie_links(facts.doctor, *topology)) {
        const Labels gpu{{"gpu", std::to_string(link.gpus.front())}};
        if (link.lower_is_gpu && link.width) {
            width.sample(gpu, *link.width);
        }
        if (link.lower_is_gpu && link.capable) {
            capable.sample(gpu, *link.capable);
        }
    }
    return width.text() + capable.text();
}

// The AER counters of every device on the examined GPUs' paths, by file.
std::string pcie_aer_family(const ExportFacts& facts) {
    Family errors("peergate_pcie_aer_errors_total",
                  "counter",
                  "PCIe AER error messages since boot of a GPU or a port above it (sysfs "
                  "aer_dev_*: TOTAL_ERR_COR, TOTAL_ERR_NONFATAL, TOTAL_ERR_FATAL).");
    const auto* topology = facts.doctor.discovery.described();
    if (topology == nullptr) {
        return "";
    }
    for (const auto& [device, gpus] : policy::gpus_through(facts.doctor, *topology)) {
        const auto aer = facts.doctor.aer.find(device);
        if (aer == facts.doctor.aer.end()) {
            continue;
        }
        for (const auto& [severity, file] : {std::pair{"correctable", &aer->second.correctable},
                                             std::pair{"nonfatal", &aer->second.nonfatal},
                                             std::pair{"fatal", &aer->second.fatal}}) {
            if (*file) {
                errors.sample({{"pci_bus_id", device.to_sysfs()}, {"severity", severity}},
                              static_cast<double>((*file)->sum()));
            }
        }
    }
    return errors.text();
}

// Each finding code the doctor gave, and how many times, so an alert can name one code; the
// codes are a fixed set (docs/doctor.md), so the series stay few.
std::string finding_codes(const policy::DoctorReport& report) {
    std::map<std::pair<std::string, model::Severity>, int> counts;
    for (const auto& finding : report.findings) {
        ++counts[{finding.code, finding.severity}];
    }
    Family codes("peergate_doctor_finding",
                 "gauge",
                 "The doctor's findings by code: how many it gave of each (docs/doctor.md).");
    for (const auto& [key, count] : counts) {
        codes.sample({{"code", key.first}, {"severity", std::string(model::to_string(key.second))}},
                     count);
    }
    return codes.text();
}

std::string verdict_families(const ExportFacts& facts) {
    Family allowed("peergate_p2p_allowed",
                   "gauge",
                   "1 when peergate's gate allows P2P among the GPUs examined, else 0.");
    allowed.sample({}, facts.gate.p2p ? 1 : 0);
    Family verdict("peergate_doctor_verdict",
                   "gauge",
                   "The doctor's verdict on the node: 1 for the verdict given, 0 for the others.");
    for (auto each :
         {policy::Verdict::healthy, policy::Verdict::problems, policy::Verdict::inconclusive}) {
        verdict.sample({{"verdict", std::string(policy::to_string(each))}},
                       facts.report.verdict == each ? 1 : 0);
    }
    Family findings("peergate_doctor_findings", "gauge", "The doctor's findings, by severity.");
    for (auto severity :
         {model::Severity::error, model::Severity::warning, model::Severity::info}) {
        int count = 0;
        for (const auto& finding : facts.report.findings) {
            count += finding.severity == severity ? 1 : 0;
        }
        findings.sample({{"severity", std::string(model::to_string(severity))}}, count);
    }
    return allowed.text() + verdict.text() + findings.text() + finding_codes(facts.report);
}

// Each ordered pair: its NVLinks, NVML's and CUDA's answers, and what was measured.
std::string link_families(const ExportFacts& facts) {
    Family nvlinks(
        "peergate_pair_nvlinks",
        "gauge",
        "NVLinks between the two GPUs (the NV# of nvidia-smi topo -m; 0 for a PCIe path).");
    Family status("peergate_p2p_status",
                  "gauge",
                  "NVML's P2P status per caps index (0 OK ... 6 Unknown, as DCGM's exporter).");
    Family cuda("peergate_cuda_can_access_peer",
                "gauge",
                "1 when cuDeviceCanAccessPeer says the GPU can reach its peer directly, else 0.");
    const model::Topology* topology = facts.doctor.discovery.described();
    for (const auto& layers : facts.doctor.pairs) {
        const Labels pair = pair_labels(layers.src, layers.dst);
        nvlinks.sample(pair, topology ? nvlinks_between(*topology, layers.src, layers.dst) : 0);
        for (std::size_t caps = 0; caps < policy::kP2pCaps.size(); ++caps) {
            if (const auto* word = status_word(layers.nvml[caps])) {
                Labels labels = pair;
                labels.emplace_back("caps", std::string(policy::kP2pCaps[caps]));
                labels.emplace_back("link_status", std::string(word->word));
                status.sample(labels, word->code);
            }
        }
        if (layers.cuda_can_access_peer) {
            cuda.sample(pair, *layers.cuda_can_access_peer ? 1 : 0);
        }
    }
    return nvlinks.text() + status.text() + cuda.text();
}

// Copies whose payload did not verify, per ordered pair (only when a probe ran).
std::string integrity_family(const ExportFacts& facts) {
    if (!facts.doctor.probe) {
        return "";
    }
    Family errors("peergate_p2p_integrity_errors_total",
                  "counter",
                  "Peer-to-peer copies whose payload did not verify.");
    for (const auto& layers : facts.doctor.pairs) {
        int failed = 0;
        for (const auto& cell : facts.doctor.probe->cells) {
            const bool lost = cell.status == model::CellStatus::dropped ||
                              cell.status == model::CellStatus::corrupted;
            failed += cell.src == layers.src && cell.dst == layers.dst && lost ? 1 : 0;
        }
        errors.sample(pair_labels(layers.src, layers.dst), failed);
    }
    return errors.text();
}

// A bench result's rates (--bandwidth), in bytes per second.
std::string bandwidth_families(const ExportFacts& facts) {
    Family p2p("peergate_p2p_bandwidth_bytes_per_second",
               "gauge",
               "Measured peer-to-peer copy bandwidth.");
    Family staged("peergate_staged_bandwidth_bytes_per_second",
                  "gauge",
                  "Measured bandwidth of the same copy staged through host memory.");
    for (const auto& layers : facts.doctor.pairs) {
        Labels labels = pair_labels(layers.src, layers.dst);
        labels.emplace_back("mode", "unidirectional");
        if (layers.p2p_gbps) {
            p2p.sample(labels, *layers.p2p_gbps * 1e9);
        }
        if (layers.staged_gbps) {
            staged.sample(labels, *layers.staged_gbps * 1e9);
        }
    }
    return p2p.text() + staged.text();
}

std::string pair_families(const ExportFacts& facts) {
    return link_families(facts) + integrity_family(facts) + bandwidth_families(facts);
}

// Batch-job metrics: when the run finished, when the node was last healthy, how long it took.
std::string run_families(const ExportFacts& facts) {
    Family last_run("peergate_last_run_timestamp_seconds",
                    "gauge",
                    "Unix time the last peergate run finished.");
    last_run.sample({}, static_cast<double>(facts.run.finished_unix));
    Family last_success(
        std::string(kLastSuccess),
        "gauge",
        "Unix time of the last peergate run that found the node healthy (0: none).");
    last_success.sample({},
                        healthy(facts) ? static_cast<double>(facts.run.finished_unix)
                                       : facts.run.previous_success_unix.value_or(0));
    Family duration(
        "peergate_run_duration_seconds", "gauge", "Wall time of the last peergate run.");
    duration.sample({}, facts.run.duration_seconds);
    return last_run.text() + last_success.text() + duration.text();
}

}  // namespace

std::string prometheus_label_value(std::string_view value) {
    std::string out;
    for (char c : value) {
        if (c == '\\' || c == '"') {
            out += '\\';
            out += c;
        } else if (c == '\n') {
            out += "\\n";
        } else {
            out += c;
        }
    }
    return out;
}

std::optional<double> last_success_in(std::string_view textfile) {
    for (const auto& line : util::split(textfile, '\n')) {
        if (line.size() > kLastSuccess.size() + 1 && line.starts_with(kLastSuccess) &&
            line[kLastSuccess.size()] == ' ') {
            const auto text = util::trim(line.substr(kLastSuccess.size() + 1));
            double value = 0;
            const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
            if (ec == std::errc{} && end == text.data() + text.size() && value > 0) {
                return value;
            }
        }
    }
    return std::nullopt;
}

std::string export_prometheus(const ExportFacts& facts) {
    return identity_families(facts) + verdict_families(facts) + gpu_link_families(facts) +
           nvlink_error_family(facts) + pcie_link_families(facts) + pcie_aer_family(facts) +
           pair_families(facts) + run_families(facts);
}

}  // namespace peergate::report
