// SPDX-License-Identifier: Apache-2.0
// The verdict cache's meaning: whether it holds for this boot (judge_cache), and probes of
// different GPUs on one boot adding up in it (merge_probe_results).
#include "policy/gate/probe_cache.hpp"

#include "util/strings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>

namespace peergate::policy::gate {

namespace {

// A pair passed concurrent mode on `path` when every concurrent cell of it on that path is
// ok on the direct path.
bool passed_concurrent(const model::ProbeResult& r, int src, int dst, model::ProbePath path) {
    bool any = false;
    for (const auto& c : r.cells) {
        if (c.src != src || c.dst != dst || c.mode != model::ProbeMode::concurrent ||
            c.path_kind != path) {
            continue;
        }
        if (c.status != model::CellStatus::ok || c.path != model::CopyPath::direct) {
            return false;
        }
        any = true;
    }
    return any;
}

const model::ProbePair* find_pair(const model::ProbeResult& r, int src, int dst) {
    const auto it = std::find_if(r.pairs.begin(), r.pairs.end(), [&](const model::ProbePair& p) {
        return p.src == src && p.dst == dst;
    });
    return it == r.pairs.end() ? nullptr : &*it;
}

bool lost(const model::ProbePair* pair) {
    return pair != nullptr && pair->verdict == model::PairVerdict::data_lost;
}

bool lost_on(const model::ProbeResult& r, int src, int dst, model::ProbePath path) {
    return std::any_of(r.cells.begin(), r.cells.end(), [&](const model::ProbeCell& c) {
        return c.src == src && c.dst == dst && c.path_kind == path &&
               (c.dropped > 0 || c.wrong > 0 || c.flags_lost > 0 || model::lost_data(c));
    });
}

// The paths the cached cells cover, in the order of kAllProbePaths.
std::vector<model::ProbePath> covered_paths(const model::ProbeResult& r) {
    std::vector<model::ProbePath> paths;
    for (const auto path : model::kAllProbePaths) {
        if (std::any_of(r.cells.begin(), r.cells.end(), [&](const auto& c) {
                return c.path_kind == path;
            })) {
            paths.push_back(path);
        }
    }
    return paths;
}

PathPairs judge_path(const model::ProbeResult& r, model::ProbePath path) {
    PathPairs pairs{.path = path};
    for (const auto& pair : r.pairs) {
        if (lost_on(r, pair.src, pair.dst, path)) {
            pairs.lost.emplace_back(pair.src, pair.dst);
        } else if (passed_concurrent(r, pair.src, pair.dst, path)) {
            pairs.passed.emplace_back(pair.src, pair.dst);
        }
    }
    return pairs;
}

const PathPairs* on_path(const CacheVerdict& verdict, model::ProbePath path) {
    const auto it = std::find_if(verdict.by_path.begin(),
                                 verdict.by_path.end(),
                                 [&](const PathPairs& p) { return p.path == path; });
    return it == verdict.by_path.end() ? nullptr : &*it;
}

bool listed(const std::vector<std::pair<int, int>>& pairs, std::pair<int, int> pair) {
    return std::find(pairs.begin(), pairs.end(), pair) != pairs.end();
}

void erase_pair(model::ProbeResult& r, int src, int dst) {
    std::erase_if(r.pairs, [&](const auto& p) { return p.src == src && p.dst == dst; });
    std::erase_if(r.cells, [&](const auto& c) { return c.src == src && c.dst == dst; });
}

void copy_pair(const model::ProbeResult& from,
               const model::ProbePair& pair,
               model::ProbeResult& to) {
    to.pairs.push_back(pair);
    std::copy_if(from.cells.begin(),
                 from.cells.end(),
                 std::back_inserter(to.cells),
                 [&](const model::ProbeCell& c) { return c.src == pair.src && c.dst == pair.dst; });
}

model::ProbeOutcome outcome_of(const std::vector<model::ProbePair>& pairs) {
    auto any = [&](model::PairVerdict verdict) {
        return std::any_of(pairs.begin(), pairs.end(), [&](const model::ProbePair& p) {
            return p.verdict == verdict;
        });
    };
    if (any(model::PairVerdict::data_lost)) {
        return model::ProbeOutcome::fail;
    }
    const bool open = any(model::PairVerdict::error) || any(model::PairVerdict::skipped);
    return open ? model::ProbeOutcome::inconclusive : model::ProbeOutcome::pass;
}

// The earlier result's GPUs and modes that the latest lacks, appended in ascending order.
void add_missing(const model::ProbeResult& earlier, model::ProbeResult& latest) {
    for (int gpu : earlier.gpus) {
        if (std::find(latest.gpus.begin(), latest.gpus.end(), gpu) == latest.gpus.end()) {
            latest.gpus.push_back(gpu);
        }
    }
    std::sort(latest.gpus.begin(), latest.gpus.end());
    for (auto mode : earlier.modes) {
        if (std::find(latest.modes.begin(), latest.modes.end(), mode) == latest.modes.end()) {
            latest.modes.push_back(mode);
        }
    }
}

std::string what_was_kept(std::size_t kept, std::size_t overruled) {
    std::string text = fmt::format(
        " (with {} ordered pair{} from an earlier probe on this boot", kept, kept == 1 ? "" : "s");
    if (overruled > 0) {
        text += fmt::format(
            "; {} of them lost data then and not this time: a loss stands for the rest of the "
            "boot",
            overruled);
    }
    return text + ")";
}

}  // namespace

CacheVerdict judge_cache(const std::optional<model::ProbeCacheEntry>& entry,
                         const model::MachineIdentity& now) {
    CacheVerdict verdict;
    if (!entry) {
        verdict.reason = "no cached probe result";
        return verdict;
    }
    // An unknown boot id cannot prove "this boot": fail closed.
    if (now.boot_id.empty()) {
        verdict.reason = "the boot id is unknown, so a cached result cannot be tied to this boot";
        verdict.doubt = unmatched_loss_doubt(*entry, verdict.reason);
        return verdict;
    }
    const auto changed = model::identity_differences(entry->identity, now);
    if (!changed.empty()) {
        verdict.reason = "stale: changed since the probe: " + util::join(changed, ", ");
        verdict.doubt = unmatched_loss_doubt(*entry, verdict.reason);
        return verdict;
    }
    return judge_result(entry->result);
}

CacheVerdict judge_result(const model::ProbeResult& result) {
    CacheVerdict verdict;
    verdict.valid = true;
    // A pair that lost data in any mode does not vouch, however its concurrent cells went:
    // the loss is load-dependent, and one seen is doubt.
    for (const auto& pair : result.pairs) {
        if (pair.verdict == model::PairVerdict::data_lost) {
            verdict.lost_pairs.emplace_back(pair.src, pair.dst);
        }
        if (pair.verdict == model::PairVerdict::ok &&
            passed_concurrent(result, pair.src, pair.dst, model::ProbePath::ce)) {
            verdict.concurrent_pass_pairs.emplace_back(pair.src, pair.dst);
        }
    }
    for (const auto path : covered_paths(result)) {
        verdict.by_path.push_back(judge_path(result, path));
    }
    verdict.reason = "written on this boot and machine identity";
    return verdict;
}

std::vector<model::ProbePath> paths_needed(Profile profile) {
    using model::ProbePath;
    switch (profile) {
        case Profile::llama_cpp:
            return {ProbePath::ce};
        case Profile::nccl:
        case Profile::vllm:
        case Profile::sglang:
            return {ProbePath::sm_store, ProbePath::handshake};
        case Profile::all:
            return {ProbePath::ce, ProbePath::sm_store, ProbePath::handshake};
    }
    return {ProbePath::ce, ProbePath::sm_store, ProbePath::handshake};
}

std::vector<model::ProbePath> paths_that_veto(Profile profile) {
    if (profile == Profile::llama_cpp) {
        return {model::ProbePath::ce};
    }
    return {std::begin(model::kAllProbePaths), std::end(model::kAllProbePaths)};
}

std::vector<std::pair<int, int>> passed_pairs_for(const CacheVerdict& verdict, Profile profile) {
    const auto needed = paths_needed(profile);
    const PathPairs* first = on_path(verdict, needed.front());
    std::vector<std::pair<int, int>> pairs;
    if (first == nullptr) {
        return pairs;  // the cached runs never probed the path this profile needs first
    }
    for (const auto& pair : first->passed) {
        const bool everywhere = std::all_of(needed.begin(), needed.end(), [&](auto path) {
            const PathPairs* on = on_path(verdict, path);
            return on != nullptr && listed(on->passed, pair);
        });
        if (everywhere) {
            pairs.push_back(pair);
        }
    }
    return pairs;
}

std::vector<std::pair<int, int>> lost_pairs_for(const CacheVerdict& verdict, Profile profile) {
    std::vector<std::pair<int, int>> pairs;
    for (const auto path : paths_that_veto(profile)) {
        const PathPairs* on = on_path(verdict, path);
        if (on == nullptr) {
            continue;
        }
        for (const auto& pair : on->lost) {
            if (!listed(pairs, pair)) {
                pairs.push_back(pair);
            }
        }
    }
    std::sort(pairs.begin(), pairs.end());
    return pairs;
}

std::string unmatched_loss_doubt(const model::ProbeCacheEntry& entry,
                                 const std::string& why_not_valid) {
    const auto& pairs = entry.result.pairs;
    const auto loss = std::find_if(pairs.begin(), pairs.end(), [](const model::ProbePair& p) {
        return p.verdict == model::PairVerdict::data_lost;
    });
    if (loss == pairs.end()) {
        return "";
    }
    // The loss is load-dependent and lives in the hardware path: a reboot or a new driver does
    // not show it gone; only a probe on this boot can (docs/gate-rules.md §6).
    return fmt::format(
        "the verdict cache recorded data lost from GPU {} to GPU {} (probe of {}) and cannot be "
        "matched to this machine now ({}); probe again on this boot",
        loss->src,
        loss->dst,
        entry.written_at.empty() ? "an unknown time" : entry.written_at,
        why_not_valid);
}

model::ProbeResult merge_probe_results(const model::ProbeResult& earlier,
                                       model::ProbeResult latest) {
    const model::ProbeResult just_run = latest;
    std::size_t kept = 0;
    std::size_t overruled = 0;
    for (const auto& pair : earlier.pairs) {
        const model::ProbePair* again = find_pair(just_run, pair.src, pair.dst);
        if (again != nullptr) {
            // The loss is load-dependent: a pair that lost data once on this boot may lose it
            // again, so a later pass does not replace that verdict.
            if (!lost(&pair) || lost(again)) {
                continue;
            }
            erase_pair(latest, pair.src, pair.dst);
            ++overruled;
        }
        ++kept;
        copy_pair(earlier, pair, latest);
    }
    if (kept == 0) {
        return latest;
    }
    add_missing(earlier, latest);
    std::sort(latest.pairs.begin(), latest.pairs.end(), [](const auto& a, const auto& b) {
        return std::pair(a.src, a.dst) < std::pair(b.src, b.dst);
    });
    latest.outcome = outcome_of(latest.pairs);
    latest.reason += what_was_kept(kept, overruled);
    return latest;
}

}  // namespace peergate::policy::gate
