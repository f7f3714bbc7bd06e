// SPDX-License-Identifier: Apache-2.0
#include "policy/gate/gate.hpp"

#include "policy/gate/env_plan.hpp"
#include "policy/gate/node_usability.hpp"
#include "policy/gate/profiles.hpp"
#include "policy/gate/rules.hpp"
#include "policy/gate/veto.hpp"

namespace peergate::policy::gate {

namespace {

bool wants(Profile profile, Profile part) {
    return profile == part || profile == Profile::all;
}

GateDecision verdict_to_decision(const GateFacts& facts, const P2pVerdict& verdict) {
    GateDecision d;
    d.profile = facts.input.profile;
    d.selection = facts.selection.ids;
    d.selection_source = facts.selection.source;
    d.p2p = verdict.p2p;
    d.veto = verdict.p2p ? "" : verdict.reason;
    d.rule = verdict.rule;
    d.reason = verdict.reason;
    d.topology_source =
        facts.input.topology ? facts.input.topology->source : model::TopologySource::none;
    d.iommu = facts.input.host.iommu;
    d.node = node_usability(facts.input);
    d.warnings = facts.input.notes;
    d.warnings.insert(d.warnings.end(), facts.selection.notes.begin(), facts.selection.notes.end());
    return d;
}

void warn_forced(const GateFacts& facts, const P2pVerdict& verdict, EnvPlan& plan) {
    if (verdict.rule != "force_p2p") {
        return;
    }
    std::string text = "P2P forced by " + facts.control.force_p2p.variable +
                       "=1 on a fabric peergate has not verified; run `peergate probe` first";
    if (bare_metal_translating(facts.input.host)) {
        text += std::string(": this host is") + (kIommuSuffix + 1);
    }
    plan.warn(std::move(text));
}

// Whether the same input, with the cache's untrusted passes trusted, would allow P2P: the trust
// hint is worth giving only then (not where every pair is allowed already, nor where a loss or
// another rule vetoes whatever the cache vouches for).
bool trust_would_allow(const GateInput& input, const P2pVerdict& verdict) {
    if (verdict.p2p || input.untrusted_probe_passes.empty()) {
        return false;
    }
    GateInput trusted = input;
    if (!trusted.probe) {
        trusted.probe = ProbeVerdict{.pair_level = true};
    }
    trusted.probe->pair_level = true;
    trusted.probe->passed_pairs = input.untrusted_probe_passes;
    trusted.untrusted_probe_passes.clear();
    return decide_p2p(GateFacts(trusted)).p2p;
}

}  // namespace

GateDecision decide(const GateInput& input) {
    const GateFacts facts(input);
    const P2pVerdict verdict = decide_p2p(facts);
    GateDecision decision = verdict_to_decision(facts, verdict);
    decision.trust_would_allow = trust_would_allow(input, verdict);
    EnvPlan plan(input.env, decision);
    plan_strip(facts, plan);
    plan_pinning(facts, plan);
    if (wants(input.profile, Profile::llama_cpp)) {
        plan_llama_cpp(facts, verdict, plan);
    }
    if (wants(input.profile, Profile::nccl)) {
        plan_nccl(facts, verdict, plan);
    }
    if (wants(input.profile, Profile::vllm)) {
        plan_vllm(facts, verdict, plan);
    }
    if (wants(input.profile, Profile::sglang)) {
        plan_sglang(facts, verdict, plan);
    }
    warn_forced(facts, verdict, plan);
    if (decision.trust_would_allow) {
        plan.warn(
            "the cached probe passed every pair of this selection on this boot: set "
            "PEERGATE_TRUST_PROBE=1 to let it allow PCIe P2P (docs/probe.md, the verdict cache)");
    }
    return decision;
}

GateDecision failed_decision(GateInput input, const std::string& reason) {
    input.topology.reset();
    input.failures.push_back(reason);
    return decide(input);
}

}  // namespace peergate::policy::gate
