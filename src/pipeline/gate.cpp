// SPDX-License-Identifier: Apache-2.0
#include "pipeline/gate.hpp"

#include "pipeline/identity_join.hpp"
#include "pipeline/probe_cache_io.hpp"
#include "policy/gate/control.hpp"
#include "policy/gate/selection.hpp"
#include "sources/discovery/topology_tiers.hpp"
#include "sources/host/host_facts_reader.hpp"
#include "sources/host/vllm_p2p_cache.hpp"
#include "sources/nccl/nccl_topo_file.hpp"
#include "sources/smi/query_gpu_parser.hpp"
#include "sources/smi/smi_runner.hpp"
#include "sources/smi/topo_m_parser.hpp"
#include "util/strings.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <exception>

namespace peergate::pipeline {

namespace {

std::string unreadable_reason(const model::Discovery& discovery) {
    std::vector<std::string> tiers;
    for (const auto& attempt : discovery.attempts) {
        if (!attempt.reason.empty()) {
            tiers.push_back(attempt.tier + ": " + attempt.reason);
        }
    }
    return tiers.empty() ? discovery.reason
                         : fmt::format("{} ({})", discovery.reason, util::join(tiers, "; "));
}

// Without a matrix the names still decide the tuning (and FORCE_P2P needs them).
std::vector<model::Gpu> listed_gpus(const util::Seams& seams, const util::EnvMap& env) {
    auto text = sources::smi::run_smi(
        seams.nvidia_smi, {"--query-gpu=index,name,pci.bus_id,uuid", "--format=csv,noheader"}, env);
    if (!text) {
        return {};
    }
    auto gpus = sources::smi::parse_query_gpu(*text);
    return gpus ? std::move(*gpus) : std::vector<model::Gpu>{};
}

std::vector<std::string> crosscheck_warnings(const model::Discovery& discovery) {
    std::vector<std::string> warnings;
    if (!discovery.crosscheck || discovery.crosscheck->agree()) {
        return warnings;
    }
    const auto pairs = [](const std::vector<std::pair<int, int>>& list) {
        std::vector<std::string> out;
        for (const auto& [a, b] : list) {
            out.push_back(fmt::format("{}-{}", a, b));
        }
        return out.empty() ? std::string("none") : util::join(out, ", ");
    };
    warnings.push_back(fmt::format(
        "NVML and nvidia-smi topo -m disagree (NVML-only NVLink pairs: {}; topo-only: {}); "
        "nvidia-smi topo -m wins",
        pairs(discovery.crosscheck->nvml_only),
        pairs(discovery.crosscheck->smi_only)));
    return warnings;
}

}  // namespace

util::Expected<GateRequest> parse_gate_request(const std::optional<std::string>& gpus,
                                               const std::string& profile) {
    GateRequest request;
    if (gpus) {
        auto selection = policy::gate::Selection::parse(*gpus);
        if (!selection) {
            return util::unexpected(selection.error());
        }
        request.selection = std::move(*selection);
    }
    auto parsed = policy::gate::parse_profile(profile);
    if (!parsed) {
        return util::unexpected(parsed.error());
    }
    request.profile = *parsed;
    return request;
}

namespace {

std::string pair_list(const std::vector<std::pair<int, int>>& pairs) {
    std::vector<std::string> names;
    for (const auto& [a, b] : pairs) {
        names.push_back(fmt::format("GPU {} -> GPU {}", a, b));
    }
    return fmt::format("{}", fmt::join(names, ", "));
}

// The verdict cache (docs/probe.md): always reported. Its passes count only with
// PEERGATE_TRUST_PROBE=1, and then only for the pairs that passed the concurrent mode on this
// boot and identity on every path the profile's engine uses (docs/probe.md, "Paths"); its
// losses on a path the profile may use always count, since data lost on this boot is no doubt.
void consider_cached_probe(const util::Seams& seams,
                           const util::EnvMap& env,
                           const model::Discovery& discovery,
                           policy::gate::GateInput& input) {
    Context ctx;
    ctx.env = env;
    ctx.seams = seams;
    const auto reading = read_probe_cache_if_present(ctx, discovery);
    if (!reading) {
        return;  // no cache: nothing to say, and no need to open the CUDA driver
    }
    const auto& verdict = reading->verdict;
    const bool trusted = env.is_one("PEERGATE_TRUST_PROBE");
    if (!verdict.doubt.empty()) {
        input.cache_doubt = verdict.doubt;  // PEERGATE_FORCE_P2P is refused while it stands
    }
    if (!verdict.valid) {
        input.notes.push_back("cached probe result not used: " +
                              (verdict.doubt.empty() ? verdict.reason : verdict.doubt));
        return;
    }
    const auto passed = policy::gate::passed_pairs_for(verdict, input.profile);
    const auto lost = policy::gate::lost_pairs_for(verdict, input.profile);
    const std::string paths = model::path_names(policy::gate::paths_needed(input.profile));
    input.notes.push_back(fmt::format(
        "cached probe result for this boot: {} ordered pairs passed the concurrent mode on the "
        "{} path{} {} uses{}{}",
        passed.size(),
        paths,
        paths.find(',') == std::string::npos ? "" : "s",
        policy::gate::to_string(input.profile),
        trusted ? " (trusted: PEERGATE_TRUST_PROBE=1)" : "",
        lost.empty() ? "" : "; data lost on " + pair_list(lost)));
    if (!trusted) {
        input.untrusted_probe_passes = passed;  // the gate hints only where it would help
    }
    if (trusted || !lost.empty()) {
        input.probe = policy::gate::ProbeVerdict{
            .passed = false,
            .detail = fmt::format(
                "{} ordered pairs passed the concurrent mode on the {} path(s) in the cached run",
                passed.size(),
                paths),
            .pair_level = true,
            .passed_pairs = trusted ? passed : std::vector<std::pair<int, int>>{},
            .lost_pairs = lost};
    }
}

std::vector<model::Gpu> known_gpus(const policy::gate::GateInput& input) {
    if (!input.gpus.empty()) {
        return input.gpus;
    }
    return input.topology ? input.topology->gpus : std::vector<model::Gpu>{};
}

constexpr std::chrono::milliseconds kIdentityTimeout{10'000};

// The identity join: ask the CUDA driver, in a helper process started with the child's
// environment, which physical GPUs the child will see. Whatever fails leaves
// child_visible unset (the index rules of §4 apply) and says why; a driver that loads and
// fails cuInit also sets cuda_init_failure, which vetoes (§2 cuda_unavailable).
void join_on_identity(const util::Seams& seams,
                      const util::EnvMap& env,
                      const GateRequest& request,
                      policy::gate::GateInput& input) {
    const auto not_used = [&](const std::string& why) {
        input.notes.push_back("identity join not used (" + why +
                              "): the index rules of docs/gate-rules.md §4 apply");
    };
    if (request.identity_helper.empty()) {
        not_used("no peergate binary to run the CUDA helper in");
        return;
    }
    if (!cuda_library_loads(seams.cuda_library)) {
        not_used("the CUDA driver library " + seams.cuda_library + " does not load");
        return;
    }
    const auto child_env =
        child_cuda_environment(env, request.selection, input.pin_selection, known_gpus(input));
    // A driver that is there and cannot start is doubt, not the index rules (§2).
    auto visible = enumerate_child_visible(
        request.identity_helper, seams, child_env, kIdentityTimeout, &input.cuda_init_failure);
    if (!visible) {
        not_used(visible.error().message);
        return;
    }
    input.child_visible = std::move(*visible);
}

}  // namespace

policy::gate::GateInput gather_gate_input(const util::Seams& seams,
                                          const util::EnvMap& env,
                                          const GateRequest& request) {
    sources::DiscoveryRequest discovery_request;
    discovery_request.crosscheck = policy::gate::read_control_plane(env).crosscheck.on;
    return gate_input_from(
        sources::discover_topology(seams, env, discovery_request), seams, env, request);
}

policy::gate::GateInput gate_input_from(const model::Discovery& discovery,
                                        const util::Seams& seams,
                                        const util::EnvMap& env,
                                        const GateRequest& request) {
    policy::gate::GateInput input;
    input.env = env;
    input.selection = request.selection;
    input.profile = request.profile;
    input.topology = discovery.topology;
    input.notes = crosscheck_warnings(discovery);
    if (!discovery.topology) {
        input.topology_reason = unreadable_reason(discovery);
        input.gpus = listed_gpus(seams, env);
    }
    input.host = sources::host::read_host_facts(sources::host::HostRoot(seams.host_root));
    consider_cached_probe(seams, env, discovery, input);
    join_on_identity(seams, env, request, input);
    if (request.profile == policy::gate::Profile::vllm ||
        request.profile == policy::gate::Profile::all) {
        input.vllm_p2p_caches =
            sources::host::read_vllm_p2p_caches(sources::host::vllm_cache_root(env));
    }
    if (request.profile == policy::gate::Profile::sglang ||
        request.profile == policy::gate::Profile::all) {
        input.sglang_p2p_caches =
            sources::host::read_vllm_p2p_caches(sources::host::sglang_cache_root(env));
    }
    if (request.profile == policy::gate::Profile::nccl ||
        request.profile == policy::gate::Profile::all) {
        input.nccl_topo_file = sources::nccl::read_nccl_topo_file(env, seams.host_root);
    }
    input.child_argv = request.child_argv;
    return input;
}

policy::gate::GateDecision decide_safely(const std::function<policy::gate::GateInput()>& gather,
                                         const util::EnvMap& env,
                                         const GateRequest& request) {
    policy::gate::GateInput fallback;
    fallback.env = env;
    fallback.selection = request.selection;
    fallback.profile = request.profile;
    try {
        return policy::gate::decide(gather());
    } catch (const std::exception& e) {
        return policy::gate::failed_decision(fallback, std::string("deciding failed: ") + e.what());
    } catch (...) {
        return policy::gate::failed_decision(fallback, "deciding failed with an unknown error");
    }
}

policy::gate::GateDecision decide_for_host(const util::Seams& seams,
                                           const util::EnvMap& env,
                                           const GateRequest& request,
                                           policy::gate::GateInput* gathered) {
    return decide_safely(
        [&] {
            auto input = gather_gate_input(seams, env, request);
            if (gathered != nullptr) {
                *gathered = input;
            }
            return input;
        },
        env,
        request);
}

util::Expected<policy::gate::GateDecision> decide_for_launch(const util::Seams& seams,
                                                             const util::EnvMap& env,
                                                             const GateRequest& request,
                                                             policy::gate::GateInput* gathered) {
    policy::gate::GateInput input;
    auto decision = decide_for_host(seams, env, request, &input);
    if (const auto absent = policy::gate::requested_absent(input); !absent.empty()) {
        return util::unexpected(util::ErrorCode::invalid_input,
                                policy::gate::absent_text(absent, policy::gate::host_gpus(input)));
    }
    if (gathered != nullptr) {
        *gathered = std::move(input);
    }
    return decision;
}

}  // namespace peergate::pipeline
