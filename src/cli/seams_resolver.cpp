// SPDX-License-Identifier: Apache-2.0
#include "cli/seams_resolver.hpp"

#include "cli/simulate.hpp"

namespace peergate::cli {

namespace {

// The flag, else the environment variable, else "".
std::string pick(const std::string& flag, const util::EnvMap& env, const char* variable) {
    if (!flag.empty()) {
        return flag;
    }
    return env.get(variable).value_or("");
}

}  // namespace

util::Expected<void> resolve_seams(Invocation& inv) {
    const std::string simulate = pick(inv.options.simulate, inv.env, "PEERGATE_SIMULATE");
    // Under a simulation only explicit flags override its seams: a PEERGATE_NVML_LIB
    // exported for real work must not leak into a demo.
    const util::EnvMap no_env;
    const util::EnvMap& env = simulate.empty() ? inv.env : no_env;
    if (!simulate.empty()) {
        PEERGATE_TRY(apply_simulation(simulate, inv));
    }
    if (auto nvml = pick(inv.options.nvml_lib, env, "PEERGATE_NVML_LIB"); !nvml.empty()) {
        inv.seams.nvml_libraries = {nvml};
    }
    if (auto cuda = pick(inv.options.cuda_lib, env, "PEERGATE_CUDA_LIB"); !cuda.empty()) {
        inv.seams.cuda_library = cuda;
    }
    if (auto smi = pick(inv.options.nvidia_smi, env, "PEERGATE_NVIDIA_SMI"); !smi.empty()) {
        inv.seams.nvidia_smi = smi;
    }
    if (auto root = pick(inv.options.host_root, env, "PEERGATE_HOST_ROOT"); !root.empty()) {
        inv.seams.host_root = root;
    }
    return {};
}

}  // namespace peergate::cli
