// SPDX-License-Identifier: Apache-2.0
#include "policy/doctor/pairs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <map>
#include <string>

namespace peergate::policy::doctor {

namespace {

using model::Finding;
using model::Severity;

constexpr std::size_t kRead = 0;
constexpr std::size_t kNvlink = 2;

const PairLayers* find_pair(const std::vector<PairLayers>& pairs, int src, int dst) {
    const auto it = std::find_if(pairs.begin(), pairs.end(), [&](const PairLayers& p) {
        return p.src == src && p.dst == dst;
    });
    return it == pairs.end() ? nullptr : &*it;
}

std::string cuda_answer(const PairLayers& pair) {
    return pair.cuda_can_access_peer ? (*pair.cuda_can_access_peer ? "1" : "0") : "not read";
}

// The pairs a predicate picks, as one finding: the first named, the others counted.
struct Collected {
    bool unordered = false;  // one entry per pair of GPUs, not per direction
    std::vector<int> gpus;
    std::string first;
    std::size_t count = 0;

    void add(const PairLayers& pair, std::string what) {
        if (count++ == 0) {
            first = fmt::format(
                "GPU {} {} GPU {}: {}", pair.src, unordered ? "and" : "->", pair.dst, what);
        }
        gpus.push_back(pair.src);
        gpus.push_back(pair.dst);
    }

    std::string message(std::string_view lead) const {
        const std::size_t others = count - 1;
        return fmt::format(
            "{} ({}{})",
            lead,
            first,
            others == 0 ? ""
                        : fmt::format("; {} more {}pairs", others, unordered ? "" : "ordered "));
    }

    std::vector<int> sorted_gpus() const {
        auto out = gpus;
        std::sort(out.begin(), out.end());
        out.erase(std::unique(out.begin(), out.end()), out.end());
        return out;
    }
};

bool is_nvlink(const std::string& label) {
    return label.rfind("NV", 0) == 0;
}

std::optional<Finding> layers_disagree(const std::vector<PairLayers>& pairs) {
    Collected found;
    for (const auto& pair : pairs) {
        const std::string& read = pair.nvml[kRead];
        if (!read.empty() && pair.cuda_can_access_peer &&
            (read == "OK") != *pair.cuda_can_access_peer) {
            found.add(
                pair,
                fmt::format("NVML P2P read {}, cuDeviceCanAccessPeer {}", read, cuda_answer(pair)));
        }
    }
    if (found.count == 0) {
        return std::nullopt;
    }
    return Finding{
        .code = model::FindingCode::p2p_layers_disagree,
        .severity = Severity::warning,
        .gpus = found.sorted_gpus(),
        .message = found.message("NVML and the CUDA driver disagree on peer access"),
        .remedy =
            "CUDA programs follow cuDeviceCanAccessPeer: where it says 0 the driver stages their "
            "copies through host memory, whatever NVML reports. 'nvidia-smi topo -p2p rw' shows "
            "NVML's view; 'peergate gather' records both for a bug report."};
}

std::optional<Finding> nvlink_disagrees(const std::vector<PairLayers>& pairs) {
    Collected found;
    for (const auto& pair : pairs) {
        const std::string& status = pair.nvml[kNvlink];
        if (!status.empty() && !pair.label.empty() && is_nvlink(pair.label) != (status == "OK")) {
            found.add(
                pair,
                fmt::format(
                    "the topology says {}, NVML's NVLink P2P status is {}", pair.label, status));
        }
    }
    if (found.count == 0) {
        return std::nullopt;
    }
    return Finding{
        .code = model::FindingCode::nvlink_status_disagrees,
        .severity = Severity::warning,
        .gpus = found.sorted_gpus(),
        .message = found.message("The topology and NVML disagree on NVLink"),
        .remedy =
            "Check the links with 'nvidia-smi nvlink --status'. On NVSwitch systems peer "
            "traffic also needs the fabric manager running ('nvidia-smi -q' shows the "
            "fabric state)."};
}

std::optional<Finding> not_supported(const std::vector<PairLayers>& pairs) {
    Collected found{.unordered = true};
    for (const auto& pair : pairs) {
        if (pair.src < pair.dst && peer_access_refused(pairs, pair.src, pair.dst)) {
            const std::string& read = pair.nvml[kRead];
            found.add(pair,
                      fmt::format("cuDeviceCanAccessPeer 0 both ways{}",
                                  read.empty() ? "" : ", NVML P2P read " + read));
        }
    }
    if (found.count == 0) {
        return std::nullopt;
    }
    return Finding{.code = model::FindingCode::p2p_not_supported,
                   .severity = Severity::info,
                   .gpus = found.sorted_gpus(),
                   .message = found.message(
                       "The CUDA driver offers no peer access between these GPUs, so it stages "
                       "their copies through host memory: safe, and nothing for P2P to break")};
}

// docs/reference-figures.md: 3x A6000 at 1.6-2.6 GB/s P2P against 13-22 GB/s staged.
std::optional<Finding> slower_than_staged(const std::vector<PairLayers>& pairs) {
    Collected found;
    for (const auto& pair : pairs) {
        if (pair.p2p_gbps && pair.staged_gbps && *pair.p2p_gbps < *pair.staged_gbps) {
            found.add(
                pair,
                fmt::format(
                    "P2P {:.1f} GB/s, staged {:.1f} GB/s", *pair.p2p_gbps, *pair.staged_gbps));
        }
    }
    if (found.count == 0) {
        return std::nullopt;
    }
    return Finding{
        .code = model::FindingCode::p2p_slower_than_staged,
        .severity = Severity::warning,
        .gpus = found.sorted_gpus(),
        .message =
            found.message("Peer-to-peer copies are slower than copies staged through host memory"),
        .remedy =
            "Keep peer access off for these GPUs (leave GGML_CUDA_P2P unset; "
            "NCCL_P2P_DISABLE=1 for NCCL): staging is faster here. Peer traffic sent "
            "through the root complex, by a translating IOMMU or by ACS redirect, is the "
            "usual cause."};
}

// Half the median of the pairs of the same kind: a loose bar, so that ordinary spread (a
// copy engine busy for a moment, two GPUs behind one switch) stays under it.
constexpr double kSlowShare = 0.5;
constexpr std::size_t kFewestToCompare = 4;  // ordered pairs of one kind: a median means something

// Per topology token, the measured P2P rates of its ordered pairs.
std::map<std::string, std::vector<double>> rates_by_label(const std::vector<PairLayers>& pairs) {
    std::map<std::string, std::vector<double>> rates;
    for (const auto& pair : pairs) {
        if (pair.p2p_gbps && !pair.label.empty()) {
            rates[pair.label].push_back(*pair.p2p_gbps);
        }
    }
    return rates;
}

double median(std::vector<double> values) {
    const auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
    std::nth_element(values.begin(), middle, values.end());
    return *middle;
}

// A pair far slower than the other pairs of its kind: a link down or retrained, a PCIe link
// trained narrow, a port shared with other traffic. Relative, so no table of expected rates.
std::optional<Finding> slower_than_peers(const std::vector<PairLayers>& pairs) {
    std::map<std::string, double> medians;
    for (const auto& [label, rates] : rates_by_label(pairs)) {
        if (rates.size() >= kFewestToCompare) {
            medians[label] = median(rates);
        }
    }
    Collected found;
    for (const auto& pair : pairs) {
        const auto it = medians.find(pair.label);
        if (pair.p2p_gbps && it != medians.end() && *pair.p2p_gbps < kSlowShare * it->second) {
            found.add(pair,
                      fmt::format("{} at {:.1f} GB/s, where the {} pairs' median is {:.1f} GB/s",
                                  pair.label,
                                  *pair.p2p_gbps,
                                  pair.label,
                                  it->second));
        }
    }
    if (found.count == 0) {
        return std::nullopt;
    }
    return Finding{
        .code = model::FindingCode::p2p_slower_than_peers,
        .severity = Severity::warning,
        .gpus = found.sorted_gpus(),
        .message = found.message(
            "Peer-to-peer copies on some pairs are less than half as fast as on the other pairs "
            "joined the same way"),
        .remedy =
            "On an NVLink pair, look for links down or retraining ('nvidia-smi nvlink -s' "
            "and '-e', Xid 74 in the kernel log); on a PCIe pair, for a link trained below "
            "its speed or width ('nvidia-smi -q': PCIe generation and link width, current "
            "against max) or a switch port shared with other traffic. Measure again with "
            "'peergate bench' while the GPUs are idle."};
}

}  // namespace

bool peer_access_refused(const std::vector<PairLayers>& pairs, int a, int b) {
    const PairLayers* there = find_pair(pairs, a, b);
    const PairLayers* back = find_pair(pairs, b, a);
    const auto refused = [](const PairLayers* p) {
        return p != nullptr && p->cuda_can_access_peer == false;
    };
    return refused(there) && refused(back);
}

std::vector<Finding> pair_findings(const std::vector<PairLayers>& pairs) {
    std::vector<Finding> out;
    for (auto finding : {layers_disagree(pairs),
                         nvlink_disagrees(pairs),
                         not_supported(pairs),
                         slower_than_staged(pairs),
                         slower_than_peers(pairs)}) {
        if (finding) {
            out.push_back(std::move(*finding));
        }
    }
    return out;
}

std::string capability_claims(const std::vector<PairLayers>& pairs,
                              const std::vector<std::pair<int, int>>& risky) {
    std::size_t read = 0;
    std::size_t vouched = 0;
    for (const auto& [a, b] : risky) {
        for (const auto* pair : {find_pair(pairs, a, b), find_pair(pairs, b, a)}) {
            if (pair == nullptr || pair->nvml[kRead].empty() || !pair->cuda_can_access_peer) {
                continue;
            }
            ++read;
            if (pair->nvml[kRead] == "OK" && *pair->cuda_can_access_peer) {
                ++vouched;
            }
        }
    }
    if (read == 0) {
        return "";
    }
    return fmt::format(
        "; NVML (P2P read OK) and the CUDA driver (cuDeviceCanAccessPeer 1) claim peer access for "
        "{} of the {} ordered pairs they were asked about, as they do on hosts that drop the "
        "copies: only moving data and comparing it ('peergate probe') can tell",
        vouched,
        read);
}

}  // namespace peergate::policy::doctor
