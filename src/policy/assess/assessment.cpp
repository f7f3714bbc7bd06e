// SPDX-License-Identifier: Apache-2.0
#include "policy/assess/assessment.hpp"

#include "model/link_label.hpp"

#include <algorithm>

namespace peergate::policy::assess {

namespace {

using doctor::PairLayers;

// NVML's P2P read and write status say OK and cuDeviceCanAccessPeer says yes.
bool capable(const PairLayers& pair) {
    return pair.nvml[0] == "OK" && pair.nvml[1] == "OK" && pair.cuda_can_access_peer == true;
}

// A layer that was read and said no: NVML's read or write status not OK, or the CUDA driver
// refusing peer access. A layer not read refuses nothing.
bool refused(const PairLayers& pair) {
    const auto says_no = [](const std::string& status) {
        return !status.empty() && status != "OK";
    };
    return says_no(pair.nvml[0]) || says_no(pair.nvml[1]) || pair.cuda_can_access_peer == false;
}

bool is_nvlink(const PairLayers& pair) {
    const auto label = model::LinkLabel::parse(pair.label);
    return label && label->is_nvlink();
}

bool slower_than_staged(const PairLayers& pair) {
    return pair.p2p_gbps && pair.staged_gbps && *pair.p2p_gbps < *pair.staged_gbps;
}

const model::ProbePair* find_probed(const model::ProbeResult* result, int src, int dst) {
    if (result == nullptr) {
        return nullptr;
    }
    const auto found = std::find_if(result->pairs.begin(), result->pairs.end(), [&](const auto& p) {
        return p.src == src && p.dst == dst;
    });
    return found == result->pairs.end() ? nullptr : &*found;
}

// The probe result the pairs read: this run's, else the verdict cache's for this boot.
std::pair<const model::ProbeResult*, ProbeSource> probe_evidence(const doctor::DoctorInput& in) {
    if (in.probe) {
        return {&*in.probe, ProbeSource::this_run};
    }
    if (in.cached_probe) {
        return {&*in.cached_probe, ProbeSource::cached};
    }
    return {nullptr, ProbeSource::none};
}

PairAssessment assess_pair(const PairLayers& layers,
                           const model::ProbeResult* result,
                           ProbeSource source) {
    const model::ProbePair* probed = find_probed(result, layers.src, layers.dst);
    const bool tested = probed != nullptr && probed->verdict != model::PairVerdict::skipped;
    PairAssessment out{.src = layers.src,
                       .dst = layers.dst,
                       .state = pair_state(layers, probed),
                       .nvlink = is_nvlink(layers),
                       .capable = capable(layers),
                       .probe = tested ? source : ProbeSource::none,
                       .redirected = layers.acs == "redirect"};
    if (tested) {
        out.verdict = probed->verdict;
        for (const auto& path : probed->paths) {
            if (path.verdict != model::PairVerdict::skipped) {
                out.paths.push_back(path);
            }
        }
    }
    return out;
}

}  // namespace

PairState pair_state(const PairLayers& layers, const model::ProbePair* probed) {
    const auto verdict = probed ? probed->verdict : model::PairVerdict::skipped;
    if (verdict == model::PairVerdict::data_lost) {
        return PairState::data_lost;
    }
    if (verdict == model::PairVerdict::error) {
        return PairState::probe_error;
    }
    if (slower_than_staged(layers)) {
        return PairState::slower_than_staged;
    }
    if (is_nvlink(layers)) {
        return PairState::nvlink;
    }
    if (verdict == model::PairVerdict::ok) {
        return PairState::pcie_proven;
    }
    return refused(layers) ? PairState::staged_only : PairState::pcie_unverified;
}

std::string_view id(PairState state) {
    switch (state) {
        case PairState::nvlink:
            return "nvlink";
        case PairState::pcie_proven:
            return "pcie_proven";
        case PairState::pcie_unverified:
            return "pcie_unverified";
        case PairState::staged_only:
            return "staged_only";
        case PairState::slower_than_staged:
            return "slower_than_staged";
        case PairState::probe_error:
            return "probe_error";
        case PairState::data_lost:
            return "data_lost";
    }
    return "data_lost";
}

std::string_view id(ProbeSource source) {
    switch (source) {
        case ProbeSource::this_run:
            return "this_run";
        case ProbeSource::cached:
            return "cached";
        case ProbeSource::none:
            return "none";
    }
    return "none";
}

std::string_view id(model::SilentDropRisk risk) {
    switch (risk) {
        case model::SilentDropRisk::present:
            return "present";
        case model::SilentDropRisk::absent:
            return "absent";
        case model::SilentDropRisk::unknown:
            return "unknown";
    }
    return "unknown";
}

const PairAssessment* Assessment::pair(int src, int dst) const {
    const auto found = std::find_if(pairs.begin(), pairs.end(), [&](const PairAssessment& p) {
        return p.src == src && p.dst == dst;
    });
    return found == pairs.end() ? nullptr : &*found;
}

std::optional<PairState> Assessment::worst_of(int a, int b) const {
    std::optional<PairState> worst;
    for (const auto* p : {pair(a, b), pair(b, a)}) {
        if (p != nullptr && (!worst || p->state > *worst)) {
            worst = p->state;
        }
    }
    return worst;
}

Assessment assess(const doctor::DoctorInput& input,
                  const doctor::DoctorReport& report,
                  const doctor::GateOutcome& gate) {
    const auto [result, source] = probe_evidence(input);
    Assessment out{.host = {model::silent_drop_risk(input.host)},
                   .node = doctor::node_verdict(report, gate),
                   .probe = {source, result ? std::optional(result->outcome) : std::nullopt},
                   .verdict = report.verdict};
    out.pairs.reserve(input.pairs.size());
    for (const auto& layers : input.pairs) {
        out.pairs.push_back(assess_pair(layers, result, source));
    }
    return out;
}

}  // namespace peergate::policy::assess
