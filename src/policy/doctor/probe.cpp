// SPDX-License-Identifier: Apache-2.0
#include "policy/doctor/probe.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <string>

namespace peergate::policy::doctor {

namespace {

using model::Finding;
using model::PairVerdict;
using model::Severity;

// The result's ordered pairs between GPUs examined (empty: every GPU).
std::vector<const model::ProbePair*> examined_pairs(const model::ProbeResult& result,
                                                    const std::vector<int>& examined) {
    const auto in = [&](int gpu) {
        return examined.empty() ||
               std::find(examined.begin(), examined.end(), gpu) != examined.end();
    };
    std::vector<const model::ProbePair*> pairs;
    for (const auto& pair : result.pairs) {
        if (in(pair.src) && in(pair.dst)) {
            pairs.push_back(&pair);
        }
    }
    return pairs;
}

// The GPUs of those pairs whose verdict is `verdict`, ascending, each once.
std::vector<int> gpus_where(const std::vector<const model::ProbePair*>& pairs,
                            PairVerdict verdict) {
    std::vector<int> gpus;
    for (const auto* pair : pairs) {
        if (pair->verdict == verdict) {
            gpus.insert(gpus.end(), {pair->src, pair->dst});
        }
    }
    std::sort(gpus.begin(), gpus.end());
    gpus.erase(std::unique(gpus.begin(), gpus.end()), gpus.end());
    return gpus;
}

std::string mode_names(const model::ProbeResult& result) {
    std::vector<std::string_view> names;
    for (auto mode : result.modes) {
        names.push_back(model::to_string(mode));
    }
    return fmt::format("{}", fmt::join(names, ", "));
}

bool intact(const model::ProbeResult& result, int src, int dst) {
    return std::any_of(result.pairs.begin(), result.pairs.end(), [&](const model::ProbePair& p) {
        return p.src == src && p.dst == dst && p.verdict == PairVerdict::ok;
    });
}

}  // namespace

// The lost pairs whose copies came through intact: the case where llama.cpp's path is sound
// and NCCL's, vLLM's and SGLang's are not.
std::vector<const model::ProbePair*> lost_beyond_copies(const model::ProbeResult& result) {
    std::vector<const model::ProbePair*> pairs;
    for (const auto& pair : result.pairs) {
        const auto ce = std::find_if(pair.paths.begin(), pair.paths.end(), [](const auto& v) {
            return v.path == model::ProbePath::ce;
        });
        if (pair.verdict == PairVerdict::data_lost && ce != pair.paths.end() &&
            ce->verdict == PairVerdict::ok) {
            pairs.push_back(&pair);
        }
    }
    return pairs;
}

std::string failed_paths(const model::ProbePair& pair) {
    std::vector<model::ProbePath> lost;
    for (const auto& v : pair.paths) {
        if (v.verdict == PairVerdict::data_lost) {
            lost.push_back(v.path);
        }
    }
    return fmt::format("GPU {} -> GPU {} ({})", pair.src, pair.dst, model::path_names(lost));
}

std::optional<Finding> sm_path_finding(const model::ProbeResult& result) {
    const auto pairs = lost_beyond_copies(result);
    const auto copies_lost =
        std::any_of(result.pairs.begin(), result.pairs.end(), [&](const auto& p) {
            return p.verdict == PairVerdict::data_lost &&
                   std::find(pairs.begin(), pairs.end(), &p) == pairs.end();
        });
    if (pairs.empty() || copies_lost) {
        return std::nullopt;
    }
    std::vector<std::string> names;
    for (const auto* pair : pairs) {
        names.push_back(failed_paths(*pair));
    }
    return Finding{
        .code = model::FindingCode::probe_sm_path_lost,
        .severity = Severity::error,
        .gpus = gpus_where(examined_pairs(result, {}), PairVerdict::data_lost),
        .message = fmt::format("Copies pass, SM stores or the handshake fail: {} (the copy path "
                               "llama.cpp uses is intact; NCCL's P2P transport and the custom "
                               "all-reduce of vLLM and SGLang are not)",
                               fmt::join(names, "; ")),
        .remedy = result.remedy};
}

Finding probe_finding(const model::ProbeResult& result) {
    switch (result.outcome) {
        case model::ProbeOutcome::fail:
            if (auto sm = sm_path_finding(result)) {
                return *sm;
            }
            return Finding{
                .code = model::FindingCode::probe_data_lost,
                .severity = Severity::error,
                .gpus = gpus_where(examined_pairs(result, {}), PairVerdict::data_lost),
                .message = "Peer copies lost data under the probe (" + result.reason + ")",
                .remedy = result.remedy};
        case model::ProbeOutcome::pass:
            return Finding{
                .code = model::FindingCode::probe_intact,
                .severity = Severity::info,
                .gpus = result.gpus,
                .message = fmt::format(
                    "The probe moved and compared data on {} ordered pairs (modes {}): all intact",
                    result.pairs.size(),
                    mode_names(result))};
        case model::ProbeOutcome::inconclusive:
            break;
    }
    return Finding{.code = model::FindingCode::probe_inconclusive,
                   .severity = Severity::warning,
                   .gpus = result.gpus,
                   .message = "The probe could not decide: " + result.reason,
                   .remedy =
                       "Run 'peergate probe --mode all' on its own to see each pair's "
                       "cells; it needs the CUDA driver and two free GPUs."};
}

std::optional<Finding> cached_probe_finding(const model::ProbeResult& result,
                                            const std::string& written_at,
                                            const std::vector<int>& examined) {
    const auto pairs = examined_pairs(result, examined);
    std::vector<std::string> lost;
    for (const auto* pair : pairs) {
        if (pair->verdict == PairVerdict::data_lost) {
            lost.push_back(fmt::format("GPU {} -> GPU {}", pair->src, pair->dst));
        }
    }
    const std::string when =
        fmt::format("The probe run earlier on this boot (the verdict cache, written {})",
                    written_at.empty() ? "at an unknown time" : written_at);
    if (!lost.empty()) {
        return Finding{.code = model::FindingCode::cached_probe_data_lost,
                       .severity = Severity::error,
                       .gpus = gpus_where(pairs, PairVerdict::data_lost),
                       .message = fmt::format("{} lost data on {}", when, fmt::join(lost, ", ")),
                       .remedy = result.remedy};
    }
    const bool all_ok = std::all_of(
        pairs.begin(), pairs.end(), [](const auto* p) { return p->verdict == PairVerdict::ok; });
    if (pairs.empty() || !all_ok) {
        return std::nullopt;
    }
    return Finding{.code = model::FindingCode::cached_probe_intact,
                   .severity = Severity::info,
                   .message = fmt::format("{} moved data intact on {} ordered pairs of these "
                                          "GPUs (modes {}); doctor --probe tests them again now",
                                          when,
                                          pairs.size(),
                                          mode_names(result))};
}

bool probe_vouches_for(const model::ProbeResult& result,
                       const std::vector<std::pair<int, int>>& pairs) {
    return result.outcome == model::ProbeOutcome::pass &&
           std::all_of(pairs.begin(), pairs.end(), [&](const std::pair<int, int>& p) {
               return intact(result, p.first, p.second) && intact(result, p.second, p.first);
           });
}

}  // namespace peergate::policy::doctor
