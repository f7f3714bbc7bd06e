// SPDX-License-Identifier: Apache-2.0
#include "policy/gate_profiles.hpp"

#include <array>

namespace peergate::policy {

namespace {

constexpr std::array<std::string_view, 2> kNcclP2pSettings = {"NCCL_P2P_LEVEL", "NCCL_P2P_DISABLE"};

// PCIe P2P is vouched for when P2P was allowed by something other than NV# (a passing
// probe, FORCE_P2P): the user or the probe takes responsibility for the PCIe path.
bool pcie_vouched(const Verdict& verdict) {
    return verdict.p2p && verdict.rule != "every_pair_nvlink";
}

}  // namespace

void plan_nccl(const GateFacts& facts, const Verdict& verdict, EnvPlan& plan) {
    if (facts.selection.ids.size() < 2 || facts.all_pairs_nvlinked() || pcie_vouched(verdict)) {
        return;  // no peer, every pair NVLink, or PCIe P2P vouched for
    }
    bool user_set = false;
    for (const auto name : kNcclP2pSettings) {
        if (plan.inherited(name)) {
            plan.keep(name,
                      "set by the user; peergate never overrides NCCL settings (it would have "
                      "set NCCL_P2P_LEVEL=NVL)");
            user_set = true;
        }
    }
    if (user_set) {
        return;
    }
    const auto pair = facts.first_non_nvlink_pair().value_or("the fabric is not confirmed");
    plan.set_if_absent(
        "NCCL_P2P_LEVEL",
        "NVL",
        pair + ": NCCL keeps P2P on NVLink and stages the other pairs through host memory");
}

void plan_vllm(const GateFacts& facts, const Verdict& verdict, EnvPlan& plan) {
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
    plan.warn(
        "vLLM: also pass --disable-custom-all-reduce (peergate never edits the command "
        "line; no environment variable switches vLLM's custom all-reduce off)");
}

}  // namespace peergate::policy
