// SPDX-License-Identifier: Apache-2.0
#include "policy/doctor/iommu.hpp"

#include "policy/doctor/pairs.hpp"
#include "policy/doctor/probe.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace peergate::policy::doctor {

namespace {

using model::Finding;
using model::Severity;

// The PCIe pairs examined that the silent drop can hit (bare metal, translating IOMMU, not
// NVLink), less those the CUDA driver refuses peer access to: their copies are staged
// through host memory.
std::vector<std::pair<int, int>> pairs_at_risk(const DoctorInput& input, const model::Topology& t) {
    std::vector<std::pair<int, int>> risky;
    if (!pcie_copies_at_risk(input.host)) {
        return risky;
    }
    for (std::size_t p = 0; p < t.size(); ++p) {
        for (std::size_t q = p + 1; q < t.size(); ++q) {
            const int a = t.gpus[p].index;
            const int b = t.gpus[q].index;
            if (!t.matrix[p][q].is_nvlink() && is_examined(input, a) && is_examined(input, b) &&
                !peer_access_refused(input.pairs, a, b)) {
                risky.emplace_back(a, b);
            }
        }
    }
    return risky;
}

// Whether this run's probe, or the verdict cache's for this boot, saw data lost.
bool loss_proven(const DoctorInput& input) {
    const auto lost = [](const std::optional<model::ProbeResult>& result) {
        return result && std::any_of(result->pairs.begin(), result->pairs.end(), [](const auto& p) {
                   return p.verdict == model::PairVerdict::data_lost;
               });
    };
    return lost(input.probe) || lost(input.cached_probe);
}

std::vector<int> gpus_of(const std::vector<std::pair<int, int>>& pairs) {
    std::vector<int> gpus;
    for (const auto& [a, b] : pairs) {
        gpus.insert(gpus.end(), {a, b});
    }
    std::sort(gpus.begin(), gpus.end());
    gpus.erase(std::unique(gpus.begin(), gpus.end()), gpus.end());
    return gpus;
}

}  // namespace

// Bare metal with a translating IOMMU, or a translating IOMMU where cpuinfo could not say
// whether this is bare metal: where PCIe peer copies can be (or may be) dropped silently. An
// IOMMU whose mode is unread says nothing either way (model::silent_drop_risk).
bool pcie_copies_at_risk(const model::HostFacts& host) {
    const auto risk = model::silent_drop_risk(host);
    return risk.risk == model::SilentDropRisk::present ||
           risk.basis == model::SilentDropBasis::hypervisor_unknown;
}

// The silent-drop configuration: an error, or a warning when a probe just now moved data
// over every such pair intact (the gate, too, trusts a fresh pass).
std::optional<Finding> pcie_under_iommu(const DoctorInput& input, const model::Topology& t) {
    const auto risky = pairs_at_risk(input, t);
    if (risky.empty()) {
        return std::nullopt;
    }
    const auto [a, b] = risky.front();
    const auto label = t.label(a, b);  // a and b are GPUs of t: there is one
    const bool probed = input.probe && probe_vouches_for(*input.probe, risky);
    // Once data was seen lost, the probe's finding leads with its remedy; this one explains it.
    const bool lost = loss_proven(input);
    const bool known = model::silent_drop_risk(input.host).risk == model::SilentDropRisk::present;
    return Finding{
        .code = model::FindingCode::pcie_p2p_under_translating_iommu,
        .severity = probed ? Severity::warning : Severity::error,
        .gpus = gpus_of(risky),
        .message = fmt::format(
            "GPU {} to GPU {} is {}, not NVLink; {} ({}), where PCIe peer copies can be silently "
            "dropped{}{}",
            a,
            b,
            label ? label->to_token() : "?",
            known ? "bare-metal Linux with a translating IOMMU"
                  : "a translating IOMMU, and whether this is bare metal is unknown (cpuinfo "
                    "unreadable)",
            input.host.iommu_detail,
            capability_claims(input.pairs, risky),
            probed ? "; the probe just found every one of these pairs intact, but the drop "
                     "depends on load: probe again after a driver, kernel or BIOS change"
                   : ""),
        .remedy = lost ? "Boot with iommu=pt (or intel_iommu=off / amd_iommu=off): the probe "
                         "already saw these copies lose data."
                       : "Keep GGML_CUDA_P2P unset (GGML_CUDA_P2P=0 turns it ON), run 'peergate "
                         "probe' to test the pairs under load, or boot with iommu=pt (or "
                         "intel_iommu=off / amd_iommu=off)."};
}
}  // namespace peergate::policy::doctor
