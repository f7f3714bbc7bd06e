// SPDX-License-Identifier: Apache-2.0
#include "policy/nccl/findings.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <optional>
#include <set>
#include <string>

namespace peergate::policy::nccl {

namespace {

using model::Finding;
using model::NcclTransport;
using model::Severity;

constexpr std::size_t kMaxListed = 16;

std::uint64_t lines_of(const NcclPair& pair, NcclTransport transport) {
    return pair.lines[static_cast<std::size_t>(transport)];
}

std::vector<int> smi_indices(const std::map<int, NcclRankPlace>& places,
                             std::initializer_list<int> ranks) {
    std::vector<int> out;
    for (int rank : ranks) {
        auto it = places.find(rank);
        if (it != places.end() && it->second.nvml_dev && !it->second.ambiguous) {
            out.push_back(*it->second.nvml_dev);
        }
    }
    return out;
}

std::string describe_slow_lines(const NcclPair& pair) {
    std::vector<std::string> parts;
    for (auto transport : {NcclTransport::shm, NcclTransport::net}) {
        if (auto count = lines_of(pair, transport); count > 0) {
            parts.push_back(fmt::format(
                "{} {} line{}", count, model::to_string(transport), count == 1 ? "" : "s"));
        }
    }
    return fmt::format("{}", fmt::join(parts, " and "));
}

bool went_slow(const NcclPair& pair) {
    return lines_of(pair, NcclTransport::shm) + lines_of(pair, NcclTransport::net) > 0;
}

Finding nvlink_unused_finding(const NcclPair& pair, const std::map<int, NcclRankPlace>& places) {
    return Finding{
        .code = kNcclNvlinkUnused,
        .severity = Severity::error,
        .gpus = smi_indices(places, {pair.src_rank, *pair.dst_rank}),
        .message = fmt::format("rank {} -> rank {} on {} went through {} although the GPUs are "
                               "NVLink-connected ({}): NVLink unused",
                               pair.src_rank,
                               *pair.dst_rank,
                               pair.hosts.empty() ? std::string("one host") : *pair.hosts.begin(),
                               describe_slow_lines(pair),
                               pair.link_evidence),
        .remedy =
            "unset NCCL_P2P_DISABLE / NCCL_P2P_LEVEL, give the ranks one IPC namespace "
            "(docker --ipc=host), check CUDA peer access with `peergate doctor`"};
}

// Same-host pairs that went slow where the log cannot say whether NVLink was there.
Finding transport_unverified_finding(std::size_t unverified, bool have_topology) {
    const char* plural = unverified == 1 ? "" : "s";
    return Finding{
        .code = kNcclTransportUnverified,
        .severity = Severity::info,
        .message = have_topology
                       ? fmt::format("{} same-host rank pair{} used SHM or NET, but the log does "
                                     "not say which GPU each rank used (no nvmlDev or busId), so "
                                     "--topology cannot be applied",
                                     unverified,
                                     plural)
                       : fmt::format("{} same-host rank pair{} used SHM or NET, and neither the "
                                     "log's topology dump nor --topology says whether NVLink was "
                                     "there",
                                     unverified,
                                     plural),
        .remedy =
            "pass --topology FILE (nvidia-smi topo -m text or peergate topo --json), or log "
            "with NCCL_DEBUG_SUBSYS=INIT,GRAPH so NCCL prints its topology"};
}

void nvlink_unused(const NcclAnalysis& analysis,
                   const std::map<int, NcclRankPlace>& places,
                   bool have_topology,
                   std::vector<Finding>& out) {
    std::size_t unverified = 0;
    for (const auto& pair : analysis.pairs) {
        if (!pair.dst_rank || !pair.same_host.value_or(false) || !went_slow(pair)) {
            continue;
        }
        if (!pair.nvlinked) {
            ++unverified;
        } else if (*pair.nvlinked) {
            out.push_back(nvlink_unused_finding(pair, places));
        }
    }
    if (unverified > 0) {
        out.push_back(transport_unverified_finding(unverified, have_topology));
    }
}

std::optional<std::string> setting(const model::NcclLog& log, std::string_view name) {
    for (const auto& [key, value] : log.settings) {
        if (key == name) {
            return value;
        }
    }
    return std::nullopt;
}

void environment_rules(const model::NcclLog& log, std::vector<Finding>& out) {
    if (auto disable = setting(log, "NCCL_P2P_DISABLE"); disable && *disable != "0") {
        out.push_back(Finding{
            .code = kNcclP2pDisabled,
            .severity = Severity::warning,
            .message = fmt::format(
                "NCCL_P2P_DISABLE={} turned off P2P (NVLink and PCIe) for every pair", *disable),
            .remedy = "on hosts where every pair is NVLink-connected, unset it; where PCIe P2P is "
                      "unsafe, "
                      "prefer NCCL_P2P_LEVEL=NVL (see `peergate gate --for nccl`)"});
    }
    if (auto level = setting(log, "NCCL_P2P_LEVEL")) {
        out.push_back(Finding{
            .code = kNcclP2pLevel,
            .severity = Severity::warning,
            .message = fmt::format(
                "NCCL_P2P_LEVEL={} limits P2P to GPUs no farther apart than {}", *level, *level),
            .remedy = "make sure this is intended: pairs beyond that distance use SHM or NET"});
    }
    for (const auto& [name, values] : log.conflicting_settings) {
        out.push_back(Finding{
            .code = kNcclSettingDiffers,
            .severity = Severity::warning,
            .message = fmt::format(
                "{} was set to different values across the log: {}", name, fmt::join(values, ", ")),
            .remedy = "set NCCL variables the same way for every rank of a job"});
    }
}

// True when every pair of GPUs NCCL saw on `host` has an NVLink path.
bool all_nvlinked(const model::NcclLog& log,
                  const NcclAnalysis& analysis,
                  const std::string& host,
                  const std::map<int, NcclRankPlace>& places,
                  const model::Topology* topology) {
    if (topology != nullptr) {
        std::set<int> indices;
        for (const auto& [rank, place] : places) {
            if (place.host == host || analysis.hosts.size() <= 1) {
                if (auto index = nccl_topology_index(*topology, place)) {
                    indices.insert(*index);
                }
            }
        }
        if (indices.size() >= 2) {
            return std::all_of(indices.begin(), indices.end(), [&](int a) {
                return std::all_of(indices.begin(), indices.end(), [&](int b) {
                    auto label = topology->label(a, b);
                    return a == b || (label && label->is_nvlink());
                });
            });
        }
    }
    const auto* dump = nccl_dump_for(log, host);
    if (dump == nullptr || dump->gpus.size() < 2) {
        return false;
    }
    for (auto a = dump->gpus.begin(); a != dump->gpus.end(); ++a) {
        for (auto b = std::next(a); b != dump->gpus.end(); ++b) {
            if (!dump->nvlinked(a->first, b->first)) {
                return false;
            }
        }
    }
    return true;
}

void graph_rule(const model::NcclLog& log,
                const NcclAnalysis& analysis,
                const std::map<int, NcclRankPlace>& places,
                const model::Topology* topology,
                std::vector<Finding>& out) {
    const int nvlink_worst = *model::nccl_path_rank("NVB");
    std::map<std::string, const model::NcclGraph*> worst;
    for (const auto& graph : log.graphs) {
        auto rank = model::nccl_path_rank(graph.intra_type);
        if (!rank || *rank <= nvlink_worst) {
            continue;
        }
        auto& slot = worst[graph.host];
        if (slot == nullptr || *model::nccl_path_rank(slot->intra_type) < *rank) {
            slot = &graph;
        }
    }
    for (const auto& [host, graph] : worst) {
        if (!all_nvlinked(log, analysis, host, places, topology)) {
            continue;
        }
        out.push_back(Finding{
            .code = kNcclGraphWorse,
            .severity = Severity::warning,
            .message = fmt::format(
                "NCCL's graph search on {} settled for type {}/{} (pattern {}, {} channels) "
                "although every GPU pair there is NVLink-connected",
                host.empty() ? "the host" : host,
                graph->intra_type,
                graph->inter_type,
                graph->pattern,
                graph->n_channels),
            .remedy = "check NCCL_P2P_LEVEL, NCCL_P2P_DISABLE and NCCL_TOPO_FILE, and that all "
                      "NVLinks are up "
                      "(`nvidia-smi nvlink -s`)"});
    }
}

void init_rule(const model::NcclLog& log, std::vector<Finding>& out) {
    std::vector<std::string> stuck;
    std::vector<int> gpus;
    for (const auto& rank : log.ranks) {
        if (rank.init_started && !rank.init_complete) {
            stuck.push_back(
                fmt::format("rank {}{}{}", rank.rank, rank.host.empty() ? "" : " on ", rank.host));
            if (rank.nvml_dev) {
                gpus.push_back(*rank.nvml_dev);
            }
        }
    }
    if (stuck.empty()) {
        return;
    }
    const std::size_t total = stuck.size();
    if (stuck.size() > kMaxListed) {
        stuck.resize(kMaxListed);
        stuck.emplace_back("...");
    }
    out.push_back(Finding{
        .code = kNcclInitIncomplete,
        .severity = Severity::error,
        .gpus = gpus,
        .message = fmt::format("{} rank{} started NCCL init but never reached Init COMPLETE: {}",
                               total,
                               total == 1 ? "" : "s",
                               fmt::join(stuck, ", ")),
        .remedy =
            "the job hung or died during init: look for NCCL WARN lines of those ranks; a hang at "
            "P2P setup on PCIe hosts is the broken-P2P signature (`peergate probe`)"});
}

// Why NCCL went without GPUDirect RDMA, where it said so: its first "GPU Direct RDMA
// Disabled" line (socket devices left out: they never do RDMA), quoted, and the remedy that
// cause calls for. Empty message when the log has no such line.
std::pair<std::string, std::string> gdr_cause(const model::NcclLog& log) {
    const auto disabled = [](const model::NcclGdrLine& line) {
        return !line.enabled && line.net != "Socket";
    };
    const auto first = std::find_if(log.gdr.begin(), log.gdr.end(), disabled);
    if (first == log.gdr.end()) {
        return {"", ""};
    }
    const auto others = std::count_if(first + 1, log.gdr.end(), disabled);
    std::string message = fmt::format("; NCCL said \"{}\"{}{}",
                                      model::to_text(*first),
                                      first->host.empty() ? "" : " on " + first->host,
                                      others == 0 ? "" : fmt::format(" (and {} more)", others));
    if (first->distance) {
        return {message,
                "the NIC is farther from the GPU than NCCL_NET_GDR_LEVEL allows (NCCL path type "
                "numbers): run on GPUs below the NIC's PCIe switch, or raise NCCL_NET_GDR_LEVEL "
                "(PHB, SYS) where that path carries RDMA well; `peergate doctor` shows GPU-NIC "
                "paths and ACS (acs_redirect_nic)"};
    }
    return {message,
            "no peer-memory path: load nvidia-peermem (or use DMA-BUF: Linux 5.12+, the open GPU "
            "kernel modules); `peergate doctor` says which the host has (gdr_no_peer_memory)"};
}

// Network receive lines over an RDMA transport (any but NET/Socket) that lack "/GDRDMA":
// NCCL marks a connection that uses GPUDirect RDMA so, and received these into host memory.
// Send lines are left out: NCCL reads GPU memory for a send only where NCCL_NET_GDR_READ
// allows, which NCCL's documentation gives as on by default only on NVLink-based platforms.
void gdr_rule(const model::NcclLog& log,
              const std::map<int, NcclRankPlace>& places,
              std::vector<Finding>& out) {
    std::uint64_t lines = 0;
    std::set<int> ranks;
    std::set<std::string> transports;
    for (const auto& line : log.connections) {
        if (line.transport != NcclTransport::net ||
            line.direction != model::NcclDirection::receive || !line.dst_rank ||
            line.detail.starts_with("Socket") || line.detail.find("GDRDMA") != std::string::npos) {
            continue;
        }
        lines += line.count;
        ranks.insert(*line.dst_rank);
        transports.insert("NET/" + line.detail.substr(0, line.detail.find('/')));
    }
    if (lines == 0) {
        return;
    }
    std::vector<int> gpus;
    for (int rank : ranks) {
        const auto found = smi_indices(places, {rank});
        gpus.insert(gpus.end(), found.begin(), found.end());
    }
    std::sort(gpus.begin(), gpus.end());
    gpus.erase(std::unique(gpus.begin(), gpus.end()), gpus.end());
    const auto [cause, cause_remedy] = gdr_cause(log);
    out.push_back(Finding{
        .code = kNcclNetWithoutGdr,
        .severity = Severity::warning,
        .gpus = gpus,
        .message = fmt::format(
            "{} network receive line{} over {} lack /GDRDMA (rank{} {}): NCCL received that "
            "data into host memory and copied it to the GPU, not by GPUDirect RDMA{}",
            lines,
            lines == 1 ? "" : "s",
            fmt::join(transports, ", "),
            ranks.size() == 1 ? "" : "s",
            fmt::join(ranks, ", "),
            cause),
        .remedy = !cause_remedy.empty()
                      ? cause_remedy
                      : "with NCCL_DEBUG_SUBSYS=INIT,NET NCCL says why ('GPU Direct RDMA "
                        "Disabled for HCA'): load nvidia-peermem (or use DMA-BUF: Linux 5.12+, "
                        "the open GPU kernel modules); a NIC farther from the GPU than "
                        "NCCL_NET_GDR_LEVEL allows is another cause, and `peergate doctor` "
                        "shows GPU-NIC paths and ACS (acs_redirect_nic)"});
}

}  // namespace

std::vector<Finding> nccl_findings(const model::NcclLog& log,
                                   const NcclAnalysis& analysis,
                                   const std::map<int, NcclRankPlace>& places,
                                   const model::Topology* topology) {
    std::vector<Finding> out;
    nvlink_unused(analysis, places, topology != nullptr, out);
    init_rule(log, out);
    environment_rules(log, out);
    graph_rule(log, analysis, places, topology, out);
    gdr_rule(log, places, out);
    diagnostic_rules(log, analysis.diagnostics, out);
    coverage_rules(log, out);
    std::stable_sort(out.begin(), out.end(), [](const Finding& a, const Finding& b) {
        return static_cast<int>(a.severity) < static_cast<int>(b.severity);
    });
    return out;
}

}  // namespace peergate::policy::nccl
