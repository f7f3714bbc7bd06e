// SPDX-License-Identifier: Apache-2.0
#include "report/exports/prometheus.hpp"

#include "model/finding.hpp"
#include "report/exports/prometheus_family.hpp"
#include "report/exports/prometheus_hardware.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <utility>
#include <vector>

namespace peergate::report::exports {

namespace {

using Labels = PrometheusLabels;
using Family = PrometheusFamily;

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

// Each finding code the doctor gave, so an alert can name one code; the codes are a fixed
// set (docs/doctor.md), so the series stay few. A code not given has no series: the set holds
// each Xid and SXid the kernel log may name (xid_<n>, sxid_<n>), so it cannot be written in
// advance.
std::string finding_codes(const policy::doctor::DoctorReport& report) {
    std::map<std::pair<std::string, model::Severity>, int> counts;
    for (const auto& finding : report.findings) {
        ++counts[{finding.id(), finding.severity}];
    }
    Family active("peergate_doctor_finding_active",
                  "gauge",
                  "1 for each finding code (docs/doctor.md) and severity the doctor gave in this "
                  "run; a code not given has no series.");
    // Issue 35: one letter from peergate_doctor_findings; kept for one release.
    Family codes("peergate_doctor_finding",
                 "gauge",
                 "DEPRECATED: use peergate_doctor_finding_active. The doctor's findings by code: "
                 "how many it gave of each (docs/doctor.md).");
    for (const auto& [key, count] : counts) {
        const Labels labels{{"code", key.first},
                            {"severity", std::string(model::to_string(key.second))}};
        active.sample(labels, 1);
        codes.sample(labels, count);
    }
    return active.text() + codes.text();
}

// The node's one verdict, as NFD's node.state gives it (docs/export.md, "What the node's state
// means"): a state set, 1 for the state given and 0 for the others, and whether it is usable.
std::string node_families(const ExportFacts& facts) {
    const auto verdict = node_verdict(facts);
    Family state("peergate_node_state",
                 "gauge",
                 "What may be scheduled on the node: p2p_allowed, p2p_vetoed (GPU jobs with P2P "
                 "off) or unusable (no CUDA program can start); 1 for the state given.");
    for (auto each : {policy::doctor::NodeState::p2p_allowed,
                      policy::doctor::NodeState::p2p_vetoed,
                      policy::doctor::NodeState::unusable}) {
        std::string name(to_string(each));
        std::replace(name.begin(), name.end(), '-', '_');
        state.sample({{"state", name}}, verdict.state == each ? 1 : 0);
    }
    Family usable_family("peergate_node_usable",
                         "gauge",
                         "1 when GPU jobs can start on the node (CUDA initialises), else 0.");
    usable_family.sample({}, usable(verdict.state) ? 1 : 0);
    return state.text() + usable_family.text();
}

std::string verdict_families(const ExportFacts& facts) {
    Family allowed("peergate_p2p_allowed",
                   "gauge",
                   "1 when peergate's gate allows P2P among the GPUs examined, else 0.");
    allowed.sample({}, facts.gate.p2p ? 1 : 0);
    Family verdict("peergate_doctor_verdict",
                   "gauge",
                   "The doctor's verdict on the node: 1 for the verdict given, 0 for the others.");
    for (auto each : {policy::doctor::Verdict::healthy,
                      policy::doctor::Verdict::problems,
                      policy::doctor::Verdict::inconclusive}) {
        verdict.sample({{"verdict", std::string(to_string(each))}},
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
    return node_families(facts) + allowed.text() + verdict.text() + findings.text() +
           finding_codes(facts.report);
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
        for (std::size_t caps = 0; caps < policy::doctor::kP2pCaps.size(); ++caps) {
            if (const auto* word = status_word(layers.nvml[caps])) {
                Labels labels = pair;
                labels.emplace_back("caps", std::string(policy::doctor::kP2pCaps[caps]));
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

// Whether a probe cell's payload did not verify (or, on the handshake path, its flag never
// came), and whether its transfer ran and was compared.
bool lost(const model::ProbeCell& cell) {
    return model::lost_data(cell);
}

bool checked(const model::ProbeCell& cell) {
    return cell.status == model::CellStatus::ok || lost(cell);
}

// What this run's probe found per ordered pair (only when a probe ran): its checks (one per
// copy size and mode, as peergate.probe/v1's cells) and those whose payload did not verify.
// Gauges: each run measures anew, so max_over_time, not increase(), tells a loss in a window.
std::string integrity_families(const ExportFacts& facts) {
    if (!facts.doctor.probe) {
        return "";
    }
    Family failed("peergate_p2p_integrity_failed_checks",
                  "gauge",
                  "Checks of this run's probe on the pair (one per transfer size, mode and path) "
                  "whose payload did not verify: data dropped or corrupted, or a handshake's "
                  "flag lost.");
    Family errored("peergate_p2p_integrity_errored_checks",
                   "gauge",
                   "Checks of this run's probe on the pair that could not finish (a transfer or "
                   "kernel error, a timeout): doubt, never a pass.");
    Family checks("peergate_p2p_integrity_checks",
                  "gauge",
                  "Checks this run's probe made on the pair: transfers that ran and were "
                  "compared.");
    // Issue 35: rewritten each run, so not a counter; kept for one release.
    Family errors("peergate_p2p_integrity_errors_total",
                  "counter",
                  "DEPRECATED: use peergate_p2p_integrity_failed_checks (a gauge): this one is "
                  "rewritten each run, so use max_over_time, never increase() or rate(). "
                  "Peer-to-peer copies whose payload did not verify.");
    for (const auto& layers : facts.doctor.pairs) {
        int failures = 0;
        int count = 0;
        int unfinished = 0;
        for (const auto& cell : facts.doctor.probe->cells) {
            if (cell.src == layers.src && cell.dst == layers.dst) {
                failures += lost(cell) ? 1 : 0;
                count += checked(cell) ? 1 : 0;
                unfinished += cell.status == model::CellStatus::error ? 1 : 0;
            }
        }
        const Labels pair = pair_labels(layers.src, layers.dst);
        failed.sample(pair, failures);
        errored.sample(pair, unfinished);
        checks.sample(pair, count);
        errors.sample(pair, failures);
    }
    return failed.text() + errored.text() + checks.text() + errors.text();
}

// What each ordered pair is (the assessment's state: this run's probe, else the verdict cache's
// for this boot, the bench result, the capability layers), 1 for the state given; and the
// probe's checks that could not finish on the pair. docs/export.md, prometheus.
std::string pair_state_families(const ExportFacts& facts) {
    Family state("peergate_p2p_pair_state",
                 "gauge",
                 "What the ordered pair is, as every peergate output says: nvlink, pcie_proven, "
                 "pcie_unverified, staged_only, slower_than_staged, probe_error or data_lost; 1 "
                 "for the state given.");
    for (const auto& pair : facts.assessment.pairs) {
        for (auto each : policy::assess::kAllPairStates) {
            auto labels = pair_labels(pair.src, pair.dst);
            labels.emplace_back("state", std::string(policy::assess::id(each)));
            state.sample(labels, pair.state == each ? 1 : 0);
        }
    }
    Family risk("peergate_host_silent_drop_risk",
                "gauge",
                "Whether PCIe peer copies can be silently dropped on this host (bare metal with "
                "a translating IOMMU): present, absent or unknown; 1 for the answer given.");
    for (auto each : {model::SilentDropRisk::present,
                      model::SilentDropRisk::absent,
                      model::SilentDropRisk::unknown}) {
        risk.sample({{"risk", std::string(policy::assess::id(each))}},
                    facts.assessment.host.silent_drop.risk == each ? 1 : 0);
    }
    return state.text() + risk.text();
}

// A bench result's rates (--bandwidth), in bytes per second.
std::string bandwidth_families(const ExportFacts& facts) {
    Family p2p("peergate_p2p_bandwidth_bytes_per_second",
               "gauge",
               "Measured peer-to-peer copy bandwidth.");
    Family staged("peergate_staged_bandwidth_bytes_per_second",
                  "gauge",
                  "Measured bandwidth of the same copy staged through host memory.");
    Family both("peergate_p2p_bidirectional_bandwidth_bytes_per_second",
                "gauge",
                "Measured peer-to-peer bandwidth with copies both ways at once, both "
                "directions counted (bench's bidirectional_gbps).");
    for (const auto& layers : facts.doctor.pairs) {
        Labels labels = pair_labels(layers.src, layers.dst);
        if (layers.bidirectional_gbps) {
            both.sample(labels, *layers.bidirectional_gbps * 1e9);
        }
        labels.emplace_back("mode", "unidirectional");
        if (layers.p2p_gbps) {
            p2p.sample(labels, *layers.p2p_gbps * 1e9);
        }
        if (layers.staged_gbps) {
            staged.sample(labels, *layers.staged_gbps * 1e9);
        }
    }
    return p2p.text() + staged.text() + both.text();
}

std::string pair_families(const ExportFacts& facts) {
    return link_families(facts) + integrity_families(facts) + pair_state_families(facts) +
           bandwidth_families(facts);
}

// Batch-job metrics: when the run finished, when the node was last healthy, how long it took.
std::string run_families(const ExportFacts& facts) {
    Family last_run("peergate_last_run_timestamp_seconds",
                    "gauge",
                    "Unix time the last peergate run finished.");
    last_run.sample({}, static_cast<double>(facts.run.finished_unix));
    Family last_success(
        "peergate_last_success_timestamp_seconds",
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

std::string export_prometheus(const ExportFacts& facts) {
    return identity_families(facts) + verdict_families(facts) +
           prometheus_hardware_families(facts) + pair_families(facts) + run_families(facts);
}

}  // namespace peergate::report::exports
