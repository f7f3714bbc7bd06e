// SPDX-License-Identifier: Apache-2.0
#include "pipeline/probe_trust.hpp"

#include "policy/gate/probe_cache.hpp"

#include <algorithm>
#include <utility>
#include <vector>

namespace peergate::pipeline {

namespace {

using policy::gate::Profile;

// One engine each; `all`, the union of their needs, is the standard itself.
constexpr Profile kEngineProfiles[] = {
    Profile::llama_cpp, Profile::nccl, Profile::vllm, Profile::sglang};

bool listed(const std::vector<std::pair<int, int>>& pairs, const model::ProbePair& pair) {
    return std::find(pairs.begin(), pairs.end(), std::pair(pair.src, pair.dst)) != pairs.end();
}

}  // namespace

engine::GateTrust gate_trust_of(const model::ProbeResult& result) {
    const auto verdict = policy::gate::judge_result(result);
    engine::GateTrust trust{.paths_needed = policy::gate::paths_needed(Profile::all)};
    const auto passed = policy::gate::passed_pairs_for(verdict, Profile::all);
    for (const auto& pair : result.pairs) {
        if (!listed(passed, pair)) {
            trust.untrusted.emplace_back(pair.src, pair.dst);
        }
    }
    for (const auto profile : kEngineProfiles) {
        const auto vouched = policy::gate::passed_pairs_for(verdict, profile);
        if (std::all_of(result.pairs.begin(), result.pairs.end(), [&](const auto& pair) {
                return listed(vouched, pair);
            })) {
            trust.trusted_for.emplace_back(policy::gate::to_string(profile));
        }
    }
    return trust;
}

model::ProbeResult held_to_gate_trust(model::ProbeResult result) {
    const auto trust = gate_trust_of(result);
    return engine::held_to_gate_trust(std::move(result), trust);
}

}  // namespace peergate::pipeline
