// SPDX-License-Identifier: Apache-2.0
// The nccl, vllm and sglang profiles (docs/gate-profiles.md): the safety switches those
// launchers read, set only in the environment (never argv), never over a value the user set.
#pragma once

#include "policy/gate/env_plan.hpp"

namespace peergate::policy::gate {

// NCCL: when a selected pair is not a confirmed NVLink pair and PCIe P2P is not proven
// safe (no passing probe, no FORCE), NCCL_P2P_LEVEL=NVL keeps P2P on NVLink and stages
// the rest through host memory; NCCL_P2P_DISABLE=1 instead where the topology file NCCL will
// read shows such a pair NVLinked. A user's NCCL_P2P_LEVEL / NCCL_P2P_DISABLE is kept.
void plan_nccl(const GateFacts& facts, const P2pVerdict& verdict, EnvPlan& plan);

// vLLM: where the gate vetoes, VLLM_SKIP_P2P_CHECK=0 (vLLM tests real transfers instead of
// trusting the driver's report) and VLLM_ALLREDUCE_USE_SYMM_MEM=0 (no symmetric-memory
// all-reduce over peer mappings), plus a warning to pass --disable-custom-all-reduce.
void plan_vllm(const GateFacts& facts, const P2pVerdict& verdict, EnvPlan& plan);

// SGLang: where the gate vetoes, SGLANG_SKIP_P2P_CHECK=0 (SGLang's default, so an inherited 1
// is kept and reported), a warning about SGLang's own P2P cache (~/.cache/sglang) and one to
// pass --disable-custom-all-reduce.
void plan_sglang(const GateFacts& facts, const P2pVerdict& verdict, EnvPlan& plan);

}  // namespace peergate::policy::gate
