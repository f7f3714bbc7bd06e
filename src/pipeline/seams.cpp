// SPDX-License-Identifier: Apache-2.0
#include "pipeline/seams.hpp"

#include "pipeline/simulate.hpp"

namespace peergate::pipeline {

namespace {

// The flag, else the environment variable, else "".
std::string pick(const std::string& flag, const util::EnvMap& env, const char* variable) {
    if (!flag.empty()) {
        return flag;
    }
    return env.get(variable).value_or("");
}

}  // namespace

util::Expected<void> resolve_seams(Context& ctx, const SeamChoices& chosen) {
    const std::string simulate = pick(chosen.simulate, ctx.env, "PEERGATE_SIMULATE");
    // Under a simulation only explicit flags override its seams: a PEERGATE_NVML_LIB
    // exported for real work must not leak into a demo.
    const util::EnvMap no_env;
    const util::EnvMap& env = simulate.empty() ? ctx.env : no_env;
    if (!simulate.empty()) {
        PEERGATE_TRY(apply_simulation(simulate, ctx));
    }
    if (auto nvml = pick(chosen.nvml_lib, env, "PEERGATE_NVML_LIB"); !nvml.empty()) {
        ctx.seams.nvml_libraries = {nvml};
    }
    if (auto cuda = pick(chosen.cuda_lib, env, "PEERGATE_CUDA_LIB"); !cuda.empty()) {
        ctx.seams.cuda_library = cuda;
    }
    if (auto smi = pick(chosen.nvidia_smi, env, "PEERGATE_NVIDIA_SMI"); !smi.empty()) {
        ctx.seams.nvidia_smi = smi;
    }
    if (auto root = pick(chosen.host_root, env, "PEERGATE_HOST_ROOT"); !root.empty()) {
        ctx.seams.host_root = root;
    }
    return {};
}

}  // namespace peergate::pipeline
