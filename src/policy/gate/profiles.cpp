// SPDX-License-Identifier: Apache-2.0
#include "policy/gate/profiles.hpp"

#include "policy/gate/nccl_topo.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <string>
#include <vector>

namespace peergate::policy::gate {

namespace {

constexpr std::array<std::string_view, 2> kNcclP2pSettings = {"NCCL_P2P_LEVEL", "NCCL_P2P_DISABLE"};

// PCIe P2P is vouched for when P2P was allowed by something other than NV# (a passing
// probe, FORCE_P2P): the user or the probe takes responsibility for the PCIe path.
bool pcie_vouched(const P2pVerdict& verdict) {
    return verdict.p2p && verdict.rule != "every_pair_nvlink";
}

// The CUDA_VISIBLE_DEVICES string vLLM will name its P2P cache after: the child's value, or,
// unset, every device ("0,1,...").
std::string vllm_visible_devices(const GateFacts& facts, const EnvPlan& plan) {
    if (auto visible = plan.child_value("CUDA_VISIBLE_DEVICES")) {
        return *visible;
    }
    std::string all;
    for (std::size_t i = 0; i < facts.host.size(); ++i) {
        all += (i == 0 ? "" : ",") + std::to_string(i);
    }
    return all;
}

// A cache that says peer access works makes the engine's skip-check setting moot: the engine
// reads the file instead of testing, and enables its custom all-reduce over peer access.
void warn_of_p2p_cache(const GateFacts& facts,
                       const std::vector<VllmP2pCache>& caches,
                       std::string_view engine,
                       std::string_view test_setting,
                       EnvPlan& plan) {
    const std::string visible = vllm_visible_devices(facts, plan);
    for (const auto& cache : caches) {
        const auto pairs = claimed_peer_pairs(cache);
        if (cache.visible_devices != visible || pairs.empty()) {
            continue;
        }
        plan.warn(fmt::format(
            "{} will read {}, which says peer access works ({}): {} wrote it after one small "
            "copy and never tests again, so {} does not apply; delete the file (peergate leaves "
            "other tools' files alone)",
            engine,
            cache.path,
            fmt::join(pairs, ", "),
            engine,
            test_setting));
    }
}

// vLLM's argument parser takes its flags with dashes or underscores (SGLang's, dashes).
bool disables_custom_all_reduce(const std::vector<std::string>& argv) {
    return std::any_of(argv.begin(), argv.end(), [](const std::string& arg) {
        return arg == "--disable-custom-all-reduce" || arg == "--disable_custom_all_reduce";
    });
}

// Reports the user's NCCL P2P settings as kept; true when there is one.
bool keep_users_nccl_p2p(const std::string& would, EnvPlan& plan) {
    bool user_set = false;
    for (const auto name : kNcclP2pSettings) {
        if (plan.inherited(name)) {
            plan.keep(name,
                      "set by the user; peergate never overrides NCCL settings (it would have "
                      "set " +
                          would + ")");
            user_set = true;
        }
    }
    return user_set;
}

// NCCL refuses a topology file it cannot parse, and the job fails at init; one peergate
// cannot read is one whose NVLinks it cannot compare with the host.
void warn_of_unchecked_topo_file(const GateFacts& facts, bool p2p_to_keep_off, EnvPlan& plan) {
    const auto& file = facts.input.nccl_topo_file;
    if (!file || !file->exists) {
        return;
    }
    if (!file->malformed.empty()) {
        plan.warn(fmt::format("NCCL will refuse its topology file {} and fail at init: {}",
                              nccl_topo_file_name(*file),
                              file->malformed));
    } else if (!file->unreadable.empty()) {
        plan.warn(
            fmt::format("NCCL's topology file {} was not checked for NVLinks this host "
                        "lacks: {}{}",
                        nccl_topo_file_name(*file),
                        file->unreadable,
                        p2p_to_keep_off ? "; it may claim one, so peergate sets "
                                          "NCCL_P2P_DISABLE=1 unless you set NCCL_P2P"
                                        : ""));
    }
}

// Why NCCL_P2P_LEVEL=NVL cannot keep P2P off PCIe: NCCL's topology file claims an NVLink the
// host lacks, or it could not be read to see whether it does (doubt); nullopt when neither.
std::optional<std::string> topo_file_defeats_level(const GateFacts& facts) {
    if (auto stale = stale_nvlink_claim(facts)) {
        return *stale + " but NCCL's topology file shows it NVLinked";
    }
    const auto& file = facts.input.nccl_topo_file;
    if (file && file->exists && !file->unreadable.empty()) {
        return "NCCL's topology file " + nccl_topo_file_name(*file) +
               " could not be read, so it may show NVLinks this host lacks";
    }
    return std::nullopt;
}

void warn_of_stale_topo_file(const model::NcclTopoFile& file,
                             const std::string& pair,
                             bool user_set,
                             EnvPlan& plan) {
    plan.warn(fmt::format(
        "NCCL's topology file {} shows an NVLink where this host has none ({}): a <gpu> that "
        "lists NVLinks stops NCCL from asking NVML, so NCCL would send that pair's P2P traffic "
        "over PCIe; {}. Write the file again (peergate export nccl-topo writes no NVLinks) or "
        "name none",
        nccl_topo_file_name(file),
        pair,
        user_set ? "your NCCL_P2P settings are kept" : "peergate sets NCCL_P2P_DISABLE=1"));
}

// vLLM's and SGLang's custom all-reduce maps peer memory; only a command-line flag turns it
// off, so where P2P is vetoed the launch is told to pass it, and of any cache that would
// make the engine skip its own test.
void warn_of_custom_all_reduce(const GateFacts& facts,
                               const std::vector<VllmP2pCache>& caches,
                               std::string_view engine,
                               std::string_view test_setting,
                               EnvPlan& plan) {
    if (disables_custom_all_reduce(facts.input.child_argv)) {
        return;  // the engine never asks
    }
    warn_of_p2p_cache(facts, caches, engine, test_setting, plan);
    plan.warn(fmt::format(
        "{}: also pass --disable-custom-all-reduce (peergate never edits the command line; no "
        "environment variable switches {}'s custom all-reduce off)",
        engine,
        engine));
}

}  // namespace

void plan_nccl(const GateFacts& facts, const P2pVerdict& verdict, EnvPlan& plan) {
    // No peer, every pair NVLink, or PCIe P2P vouched for: nothing to keep off PCIe.
    const bool p2p_to_keep_off =
        facts.selection.ids.size() >= 2 && !facts.all_pairs_nvlinked() && !pcie_vouched(verdict);
    warn_of_unchecked_topo_file(facts, p2p_to_keep_off, plan);
    if (!p2p_to_keep_off) {
        return;
    }
    const auto stale = stale_nvlink_claim(facts);
    const auto defeated = topo_file_defeats_level(facts);
    const bool user_set =
        keep_users_nccl_p2p(defeated ? "NCCL_P2P_DISABLE=1" : "NCCL_P2P_LEVEL=NVL", plan);
    if (stale) {
        warn_of_stale_topo_file(*facts.input.nccl_topo_file, *stale, user_set, plan);
    }
    if (user_set) {
        return;
    }
    if (defeated) {
        plan.set_if_absent(
            "NCCL_P2P_DISABLE",
            "1",
            *defeated + ": NCCL_P2P_LEVEL=NVL would not keep its P2P traffic off PCIe");
        return;
    }
    const auto pair = facts.first_non_nvlink_pair().value_or("the fabric is not confirmed");
    plan.set_if_absent(
        "NCCL_P2P_LEVEL",
        "NVL",
        pair + ": NCCL keeps P2P on NVLink and stages the other pairs through host memory");
}

void plan_vllm(const GateFacts& facts, const P2pVerdict& verdict, EnvPlan& plan) {
    if (verdict.p2p || facts.selection.ids.size() < 2) {
        return;  // P2P allowed, or no tensor-parallel peer
    }
    plan.set_if_absent(
        "VLLM_SKIP_P2P_CHECK",
        "0",
        "vLLM tests real peer transfers instead of trusting the driver's P2P report, "
        "which says OK on the hosts that drop peer copies");
    plan.set_if_absent(
        "VLLM_ALLREDUCE_USE_SYMM_MEM", "0", "no symmetric-memory all-reduce over peer mappings");
    warn_of_custom_all_reduce(
        facts, facts.input.vllm_p2p_caches, "vLLM", "VLLM_SKIP_P2P_CHECK=0", plan);
}

void plan_sglang(const GateFacts& facts, const P2pVerdict& verdict, EnvPlan& plan) {
    if (verdict.p2p || facts.selection.ids.size() < 2) {
        return;  // P2P allowed, or no tensor-parallel peer
    }
    plan.set_if_absent(
        "SGLANG_SKIP_P2P_CHECK",
        "0",
        "SGLang tests real peer transfers before its custom all-reduce instead of trusting the "
        "driver's P2P report, which says OK on the hosts that drop peer copies (0 is SGLang's "
        "default; an inherited 1 trusts the driver)");
    warn_of_custom_all_reduce(
        facts, facts.input.sglang_p2p_caches, "SGLang", "SGLANG_SKIP_P2P_CHECK=0", plan);
}

}  // namespace peergate::policy::gate
