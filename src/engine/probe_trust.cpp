// SPDX-License-Identifier: Apache-2.0
#include "engine/probe_trust.hpp"

#include "engine/probe_verdict.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <string>
#include <vector>

namespace peergate::engine {

namespace {

bool ran(const model::ProbeResult& r, model::ProbeMode mode) {
    return std::find(r.modes.begin(), r.modes.end(), mode) != r.modes.end();
}

std::string modes_named(const model::ProbeResult& r) {
    std::vector<std::string_view> names;
    for (const auto mode : r.modes) {
        names.push_back(model::to_string(mode));
    }
    return fmt::format("{} mode{}", fmt::join(names, ", "), names.size() > 1 ? "s" : "");
}

std::vector<model::ProbePath> missing_paths(const model::ProbeResult& r, const GateTrust& t) {
    std::vector<model::ProbePath> missing;
    std::copy_if(
        t.paths_needed.begin(), t.paths_needed.end(), std::back_inserter(missing), [&](auto path) {
            return std::find(r.paths.begin(), r.paths.end(), path) == r.paths.end();
        });
    return missing;
}

// The untrusted pairs a copy of which went through host memory: the driver refused the mapping.
std::vector<std::pair<int, int>> staged_pairs(const model::ProbeResult& r, const GateTrust& t) {
    std::vector<std::pair<int, int>> staged;
    for (const auto& pair : t.untrusted) {
        const bool any = std::any_of(r.cells.begin(), r.cells.end(), [&](const auto& c) {
            return c.src == pair.first && c.dst == pair.second && c.path == model::CopyPath::staged;
        });
        if (any) {
            staged.push_back(pair);
        }
    }
    return staged;
}

// What the run lacked for the gate to trust it, most telling first.
std::vector<std::string> gaps(const model::ProbeResult& r, const GateTrust& t) {
    std::vector<std::string> found;
    if (!ran(r, model::ProbeMode::concurrent)) {
        found.push_back(fmt::format(
            "not tested under load (the {} alone; the loss is load-dependent)", modes_named(r)));
    }
    const auto missing = missing_paths(r, t);
    if (!missing.empty()) {
        found.push_back(fmt::format("not tested on the {} path{}",
                                    model::path_names(missing),
                                    missing.size() > 1 ? "s" : ""));
    }
    const auto staged = staged_pairs(r, t);
    if (!staged.empty()) {
        found.push_back(
            fmt::format("no peer path tested on {} ({}, so the copies went through "
                        "host memory)",
                        pair_names(staged),
                        model::describe(model::NotApplicableWhy::peer_access_refused)));
    }
    if (found.empty()) {
        found.push_back("the gate would not vouch for " + pair_names(t.untrusted));
    }
    return found;
}

}  // namespace

model::ProbeResult held_to_gate_trust(model::ProbeResult result, const GateTrust& trust) {
    if (result.outcome != model::ProbeOutcome::pass || trust.untrusted.empty()) {
        return result;
    }
    result.outcome = model::ProbeOutcome::inconclusive;
    result.reason += fmt::format(
        "; not trusted by the gate: {}; the gate trusts a pass only from the concurrent mode on "
        "the direct path, on the {} paths{}",
        fmt::join(gaps(result, trust), "; "),
        model::path_names(trust.paths_needed),
        trust.trusted_for.empty() ? ""
                                  : fmt::format(" (it would trust this one for {} alone)",
                                                fmt::join(trust.trusted_for, ", ")));
    return result;
}

}  // namespace peergate::engine
