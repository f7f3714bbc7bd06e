// SPDX-License-Identifier: Apache-2.0
// The fail-closed property test (issue 34, docs/RELIABILITY.md): many generated gate inputs
// (topologies of every PCIe class and NV# count, islands, duplicate identities, no matrix;
// selections out of range, repeated or empty; every control variable and its alias, every
// spelling of GGML_CUDA_P2P, device masks by index, UUID and MIG; IOMMU and hypervisor states;
// probe verdicts and caches that pass, lose data or are doubt; CUDA that does not initialise),
// and the invariants of docs/gate-rules.md checked on each decision:
//   - nothing throws;
//   - P2P is allowed only by every_pair_nvlink (every selected ordered pair NV#, identities
//     distinct), probe_passed (a probe that vouches for every selected pair) or force_p2p
//     (PEERGATE_FORCE_P2P=1 with no doubt and no pair seen losing data), and never under
//     DISABLE_P2P, DISABLE_TUNING, an off-valued GGML_CUDA_P2P, a failed source or a CUDA
//     that does not start;
//   - the child's GGML_CUDA_P2P is never off-valued, and present only where P2P is allowed or
//     it is the user's own truthy value, kept;
//   - no variable outside the ones the gate owns changes;
//   - the decision does not depend on the order in which the GPUs were listed.
// PEERGATE_PROPERTY_CASES (default 100000) and PEERGATE_PROPERTY_SEED (default: the time) set
// the run; a failure prints the case's seed and the command that replays it alone.
#include "policy/gate/control.hpp"
#include "policy/gate/gate.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace peergate::policy::gate {
namespace {

using Rng = std::mt19937_64;

// What the gate may set or unset (docs/gate-profiles.md); nothing else may change.
const std::set<std::string>& owned_variables() {
    static const std::set<std::string> owned{"GGML_CUDA_P2P",
                                             "GGML_CUDA_FORCE_CUBLAS_COMPUTE_32F",
                                             "CUDA_SCALE_LAUNCH_QUEUES",
                                             "CUDA_DEVICE_ORDER",
                                             "CUDA_VISIBLE_DEVICES",
                                             "NCCL_P2P_DISABLE",
                                             "NCCL_P2P_LEVEL",
                                             "VLLM_SKIP_P2P_CHECK",
                                             "VLLM_ALLREDUCE_USE_SYMM_MEM",
                                             "SGLANG_SKIP_P2P_CHECK"};
    return owned;
}

template <typename T>
const T& pick(Rng& rng, const std::vector<T>& from) {
    return from[std::uniform_int_distribution<std::size_t>(0, from.size() - 1)(rng)];
}

bool chance(Rng& rng, double p) {
    return std::bernoulli_distribution(p)(rng);
}

model::LinkLabel random_label(Rng& rng) {
    static const std::vector<std::string> tokens{
        "NV1", "NV2", "NV4", "NV8", "NV12", "NV18", "PIX", "PXB", "PHB", "NODE", "SYS"};
    // Mostly NVLink boards and mostly-PCIe boxes, so both kinds of allow are reached.
    return *model::LinkLabel::parse(chance(rng, 0.55) ? "NV12" : pick(rng, tokens));
}

std::vector<model::Gpu> random_gpus(Rng& rng, int count) {
    static const std::vector<std::string> names{"NVIDIA B200",
                                                "NVIDIA H100 80GB HBM3",
                                                "NVIDIA A100-SXM4-80GB",
                                                "NVIDIA GeForce RTX 4090",
                                                "NVIDIA RTX 6000 Ada Generation",
                                                "",
                                                "Tesla V100"};
    const std::string name = pick(rng, names);
    std::vector<model::Gpu> gpus;
    for (int i = 0; i < count; ++i) {
        model::Gpu gpu{.index = i, .name = chance(rng, 0.9) ? name : pick(rng, names)};
        gpu.pci = model::PciAddress{.bus = static_cast<std::uint8_t>(0x10 + i * 0x10)};
        gpu.uuid = "GPU-" + std::to_string(1000 + i);
        gpus.push_back(gpu);
    }
    if (count >= 2 && chance(rng, 0.05)) {
        gpus[1].pci = gpus[0].pci;  // a contradiction, not two GPUs
    }
    if (count >= 3 && chance(rng, 0.05)) {
        gpus[2].uuid = gpus[0].uuid;
    }
    return gpus;
}

model::Topology random_topology(Rng& rng, const std::vector<model::Gpu>& gpus) {
    model::Topology t;
    t.source = chance(rng, 0.5) ? model::TopologySource::nvml : model::TopologySource::nvidia_smi;
    t.gpus = gpus;
    const std::size_t n = gpus.size();
    t.matrix.assign(n, std::vector<model::LinkLabel>(n, model::LinkLabel::self()));
    const bool uniform = chance(rng, 0.3);
    const auto shared = random_label(rng);
    for (std::size_t a = 0; a < n; ++a) {
        for (std::size_t b = a + 1; b < n; ++b) {
            t.matrix[a][b] = t.matrix[b][a] = uniform ? shared : random_label(rng);
        }
    }
    return t;
}

Selection random_selection(Rng& rng, int count) {
    const int kind = std::uniform_int_distribution<int>(0, 9)(rng);
    if (kind == 0) {
        return Selection::inherit();
    }
    if (kind == 1) {
        return Selection::all();
    }
    std::vector<int> ids;
    const int size = std::uniform_int_distribution<int>(0, count + 1)(rng);
    for (int i = 0; i < size; ++i) {
        // Out of range now and then, repeated now and then.
        ids.push_back(
            std::uniform_int_distribution<int>(0, count + (chance(rng, 0.1) ? 2 : -1))(rng));
    }
    return Selection::list(ids);
}

void add_random_environment(Rng& rng, util::EnvMap& env, int count) {
    static const std::vector<std::string> switches{"PEERGATE_DISABLE_P2P",
                                                   "UNSLOTH_DISABLE_DC_P2P",
                                                   "PEERGATE_DISABLE_TUNING",
                                                   "UNSLOTH_DISABLE_DC_TUNING",
                                                   "PEERGATE_FORCE_P2P",
                                                   "UNSLOTH_FORCE_DC_P2P",
                                                   "PEERGATE_TOPO_CROSSCHECK",
                                                   "PEERGATE_TRUST_PROBE"};
    static const std::vector<std::string> switch_values{"1", "0", "", "true", " 1"};
    for (const auto& name : switches) {
        if (chance(rng, 0.12)) {
            env.set(name, pick(rng, switch_values));
        }
    }
    static const std::vector<std::string> p2p_values{
        "", "0", "false", "OFF", " no ", "1", "yes", "on"};
    if (chance(rng, 0.35)) {
        env.set("GGML_CUDA_P2P", pick(rng, p2p_values));
    }
    const std::vector<std::string> masks{
        "0,1", "1,0", "GPU-1000,GPU-1001", "MIG-abc", "", "0", std::to_string(count + 3), "0,0"};
    if (chance(rng, 0.3)) {
        env.set("CUDA_VISIBLE_DEVICES", pick(rng, masks));
    }
    if (chance(rng, 0.3)) {
        env.set("CUDA_DEVICE_ORDER", chance(rng, 0.7) ? "PCI_BUS_ID" : "FASTEST_FIRST");
    }
    for (const char* other : {"NCCL_P2P_DISABLE", "NCCL_P2P_LEVEL", "VLLM_SKIP_P2P_CHECK"}) {
        if (chance(rng, 0.1)) {
            env.set(other, chance(rng, 0.5) ? "1" : "NVL");
        }
    }
    env.set("HOME", "/home/user");  // never the gate's
    env.set("NCCL_DEBUG", "INFO");
}

std::optional<ProbeVerdict> random_probe(Rng& rng, int count) {
    if (chance(rng, 0.5)) {
        return std::nullopt;
    }
    ProbeVerdict probe{.passed = chance(rng, 0.6), .detail = "generated"};
    probe.pair_level = chance(rng, 0.6);
    for (int a = 0; a < count; ++a) {
        for (int b = 0; b < count; ++b) {
            if (a != b && chance(rng, 0.85)) {
                probe.passed_pairs.emplace_back(a, b);
            } else if (a != b && probe.pair_level && chance(rng, 0.3)) {
                probe.lost_pairs.emplace_back(a, b);
            }
        }
    }
    return probe;
}

GateInput random_input(Rng& rng) {
    GateInput in;
    const int count = std::uniform_int_distribution<int>(1, 8)(rng);
    in.gpus = random_gpus(rng, count);
    if (chance(rng, 0.9)) {
        in.topology = random_topology(rng, in.gpus);
    } else {
        in.topology_reason = "no tier gave a matrix";
    }
    in.selection = random_selection(rng, count);
    add_random_environment(rng, in.env, count);
    static const std::vector<model::IommuMode> modes{model::IommuMode::off,
                                                     model::IommuMode::identity,
                                                     model::IommuMode::translating,
                                                     model::IommuMode::unknown};
    in.host.iommu = pick(rng, modes);
    in.host.hypervisor = chance(rng, 0.2) ? std::nullopt : std::optional<bool>(chance(rng, 0.3));
    static const std::vector<Profile> profiles{
        Profile::llama_cpp, Profile::nccl, Profile::vllm, Profile::sglang, Profile::all};
    in.profile = pick(rng, profiles);
    in.pin_selection = chance(rng, 0.8);
    in.probe = random_probe(rng, count);
    if (chance(rng, 0.1)) {
        in.cache_doubt = "the verdict cache is another user's file";
    }
    if (chance(rng, 0.05)) {
        in.cuda_init_failure =
            CudaInitFailure{802, "cuInit failed: 802 CUDA_ERROR_SYSTEM_NOT_READY"};
    }
    if (chance(rng, 0.03)) {
        in.failures.push_back("nvidia-smi timed out");
    }
    return in;
}

bool switch_on(const util::EnvMap& env, const char* name, const char* alias) {
    return env.is_one(name) || env.is_one(alias);
}

bool all_pairs(const std::vector<int>& ids, const auto& test) {
    for (int a : ids) {
        for (int b : ids) {
            if (a != b && !test(a, b)) {
                return false;
            }
        }
    }
    return true;
}

bool identities_distinct(const model::Topology& topology, const std::vector<int>& ids) {
    return all_pairs(ids, [&](int a, int b) {
        const auto* ga = model::find_gpu(topology.gpus, a);
        const auto* gb = model::find_gpu(topology.gpus, b);
        return ga != nullptr && gb != nullptr && ga->pci != gb->pci &&
               (ga->uuid.empty() || ga->uuid != gb->uuid);
    });
}

bool has_pair(const std::vector<std::pair<int, int>>& pairs, int a, int b) {
    return std::find(pairs.begin(), pairs.end(), std::pair{a, b}) != pairs.end();
}

// Why the decision breaks the allow rules, or "" where it keeps them.
std::string allow_violation(const GateInput& in, const GateDecision& d) {
    if (!d.p2p) {
        return "";
    }
    const auto& env = in.env;
    if (switch_on(env, "PEERGATE_DISABLE_P2P", "UNSLOTH_DISABLE_DC_P2P") ||
        switch_on(env, "PEERGATE_DISABLE_TUNING", "UNSLOTH_DISABLE_DC_TUNING") ||
        read_inherited_p2p(env).off() || in.cuda_init_failure || !in.failures.empty() ||
        d.selection.size() < 2) {
        return "P2P allowed over a switch, an opt-out, a failure or one GPU";
    }
    if (in.probe && !in.probe->pair_level && !in.probe->passed) {
        return "P2P allowed after a probe that lost data";
    }
    const auto lost = [&](int a, int b) {
        return in.probe && in.probe->pair_level && has_pair(in.probe->lost_pairs, a, b);
    };
    if (!all_pairs(d.selection, [&](int a, int b) { return !lost(a, b); })) {
        return "P2P allowed over a pair seen losing data";
    }
    if (d.rule == "every_pair_nvlink") {
        const bool nvlink = in.topology && all_pairs(d.selection, [&](int a, int b) {
                                const auto label = in.topology->label(a, b);
                                return label && label->is_nvlink();
                            });
        return nvlink && identities_distinct(*in.topology, d.selection)
                   ? ""
                   : "every_pair_nvlink without every pair NV# and distinct";
    }
    if (d.rule == "probe_passed") {
        const bool vouched =
            in.probe &&
            (in.probe->pair_level
                 ? all_pairs(d.selection,
                             [&](int a, int b) { return has_pair(in.probe->passed_pairs, a, b); })
                 : in.probe->passed);
        return vouched ? "" : "probe_passed without a probe vouching for every pair";
    }
    if (d.rule == "force_p2p") {
        return switch_on(env, "PEERGATE_FORCE_P2P", "UNSLOTH_FORCE_DC_P2P") && !in.cache_doubt
                   ? ""
                   : "force_p2p without FORCE, or over doubt";
    }
    return "P2P allowed by an unknown rule " + d.rule;
}

// Why the child's environment breaks the invariants, or "".
std::string environment_violation(const GateInput& in, const GateDecision& d) {
    util::EnvMap child = in.env;
    d.apply_to(child);
    const auto p2p = read_inherited_p2p(child);
    if (p2p.off()) {
        return "an off-valued GGML_CUDA_P2P reaches the child";
    }
    if (p2p.truthy() && !d.p2p && !read_inherited_p2p(in.env).truthy()) {
        return "GGML_CUDA_P2P set for the child while P2P is vetoed";
    }
    for (const auto& [name, value] : child.entries()) {
        if (!owned_variables().contains(name) && in.env.get(name) != value) {
            return "changed a variable the gate does not own: " + name;
        }
    }
    for (const auto& [name, value] : in.env.entries()) {
        if (!owned_variables().contains(name) && !child.contains(name)) {
            return "removed a variable the gate does not own: " + name;
        }
    }
    return "";
}

// The same input with the GPUs listed in another order (the tiers may answer in any order).
GateInput reordered(GateInput in, Rng& rng) {
    std::shuffle(in.gpus.begin(), in.gpus.end(), rng);
    if (in.topology) {
        auto& t = *in.topology;
        std::vector<std::size_t> order(t.size());
        for (std::size_t i = 0; i < order.size(); ++i) {
            order[i] = i;
        }
        std::shuffle(order.begin(), order.end(), rng);
        model::Topology shuffled = t;
        for (std::size_t p = 0; p < order.size(); ++p) {
            shuffled.gpus[p] = t.gpus[order[p]];
            for (std::size_t q = 0; q < order.size(); ++q) {
                shuffled.matrix[p][q] = t.matrix[order[p]][order[q]];
            }
        }
        t = std::move(shuffled);
    }
    return in;
}

struct CaseOutcome {
    std::string violation;  // "" where every invariant holds
    bool allowed = false;
};

CaseOutcome run_case(std::uint64_t seed) {
    Rng rng(seed);
    const GateInput in = random_input(rng);
    GateDecision decision;
    GateDecision again;
    try {
        decision = decide(in);
        again = decide(reordered(in, rng));
    } catch (const std::exception& e) {
        return {std::string("decide threw: ") + e.what()};
    }
    if (auto why = allow_violation(in, decision); !why.empty()) {
        return {why + " (rule " + decision.rule + ")"};
    }
    if (auto why = environment_violation(in, decision); !why.empty()) {
        return {why};
    }
    if (decision.p2p != again.p2p || decision.rule != again.rule || decision.set != again.set ||
        decision.unset != again.unset) {
        return {"the decision depends on the order the GPUs were listed (" + decision.rule +
                " vs " + again.rule + ")"};
    }
    return {"", decision.p2p};
}

std::uint64_t setting(const char* name, std::uint64_t fallback) {
    const char* text = std::getenv(name);  // NOLINT(concurrency-mt-unsafe): read before threads
    return text != nullptr && *text != '\0' ? std::strtoull(text, nullptr, 10) : fallback;
}

TEST(GateProperty, EveryGeneratedInputFailsClosed) {
    const auto now =
        static_cast<std::uint64_t>(std::chrono::system_clock::now().time_since_epoch().count());
    const std::uint64_t seed = setting("PEERGATE_PROPERTY_SEED", now % 1'000'000'007ULL);
    const std::uint64_t cases = setting("PEERGATE_PROPERTY_CASES", 100'000);
    std::printf("gate property: %llu cases from seed %llu\n",
                static_cast<unsigned long long>(cases),
                static_cast<unsigned long long>(seed));
    std::uint64_t allowed = 0;
    for (std::uint64_t i = 0; i < cases; ++i) {
        const std::uint64_t case_seed = seed + i;
        const auto outcome = run_case(case_seed);
        ASSERT_EQ(outcome.violation, "")
            << "case seed " << case_seed
            << "; replay it alone with PEERGATE_PROPERTY_SEED=" << case_seed
            << " PEERGATE_PROPERTY_CASES=1 tests/peergate_unit_policy_tests "
               "--gtest_filter=GateProperty.*";
        allowed += outcome.allowed ? 1U : 0U;
    }
    // The generator must reach both answers, or the invariants above prove nothing.
    EXPECT_GT(allowed, cases / 50);
    EXPECT_LT(allowed, cases - cases / 50);
    std::printf("gate property: %llu of %llu allowed P2P\n",
                static_cast<unsigned long long>(allowed),
                static_cast<unsigned long long>(cases));
}

}  // namespace
}  // namespace peergate::policy::gate
