// SPDX-License-Identifier: Apache-2.0
// The C API through Python's ctypes, as docs/c-api.md shows it.
#include "gate_e2e_support.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <string>

namespace peergate::e2e {
namespace {

// Why python3 cannot load this build's libpeergate.so here; empty when it can.
std::string why_python_cannot_load() {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    // TSan's runtime needs static TLS that a dlopen into python3 no longer has.
    return "a sanitizer-instrumented libpeergate.so cannot be loaded into an uninstrumented "
           "python3";
#else
    return ::access("/usr/bin/python3", X_OK) != 0 ? "no /usr/bin/python3 on this host" : "";
#endif
}

// docs/c-api.md's example asking libpeergate.so about GPUs 0 and 1 under `env`.
util::Command ctypes_example(const util::EnvMap& env) {
    util::Command command;
    command.argv = {
        "/usr/bin/python3", kScripts + "/gate_ctypes_example.py", PEERGATE_C_LIBRARY, "0,1"};
    command.env = env;
    return command;
}

// The bridged A100s (NV pairs 0-1 and 2-3) read through nvidia-smi, in a VM.
util::EnvMap bridged_vm_env() {
    auto env = base_env();
    env.set("PEERGATE_NVML_LIB", "/nonexistent/libnvidia-ml.so.1");
    env.set("PEERGATE_NVIDIA_SMI", kScripts + "/smi_bridged_a100_4x.sh");
    env.set("PEERGATE_HOST_ROOT", kFixtures + "/host/vm-dma");
    return env;
}

TEST(CtypesE2e, PythonGetsTheDecisionFromLibpeergate) {
    if (const auto why = why_python_cannot_load(); !why.empty()) {
        GTEST_SKIP() << why;
    }
    auto env = bridged_vm_env();
    env.set("GGML_CUDA_P2P", "0");
    auto command = ctypes_example(env);
    const auto vetoed = util::run_process(command);
    ASSERT_TRUE(vetoed.has_value());
    EXPECT_EQ(
        vetoed->out,
        "1 False \"GGML_CUDA_P2P='0' reads as off, so P2P stays off (the variable is removed: "
        "llama.cpp turns peer access on for any value)\" <unset>\n")
        << vetoed->err;
    command.env.unset("GGML_CUDA_P2P");
    const auto allowed = util::run_process(command);
    ASSERT_TRUE(allowed.has_value());
    EXPECT_EQ(allowed->out, "0 True null 1\n") << allowed->err;
}

TEST(CtypesE2e, PythonGetsTheBestGroupAndItsDecision) {
    if (const auto why = why_python_cannot_load(); !why.empty()) {
        GTEST_SKIP() << why;
    }
    auto command = ctypes_example(bridged_vm_env());
    command.argv[3] = "1,2,3";
    command.argv.push_back("2");
    const auto placed = util::run_process(command);
    ASSERT_TRUE(placed.has_value());
    EXPECT_EQ(placed->out, "0 True null 1\nplaced on [2, 3]\n") << placed->err;
}

// A built-in machine name resolves beside libpeergate.so, not beside python3.
TEST(CtypesE2e, ABuiltInMachineNameResolvesBesideTheLibrary) {
    if (const auto why = why_python_cannot_load(); !why.empty()) {
        GTEST_SKIP() << why;
    }
    auto env = base_env();
    env.set("PEERGATE_SIMULATE", "bridged-a100-4x");
    const auto run = util::run_process(ctypes_example(env));
    ASSERT_TRUE(run.has_value());
    EXPECT_EQ(run->out.find("no built-in machine"), std::string::npos) << run->out;
    EXPECT_EQ(run->out, "0 True null 1\n") << run->err;
}

}  // namespace
}  // namespace peergate::e2e
