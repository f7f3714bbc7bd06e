// SPDX-License-Identifier: Apache-2.0
// The C API through Python's ctypes, as docs/c-api.md shows it.
#include <gtest/gtest.h>

#include <unistd.h>

#include "gate_e2e_support.hpp"

namespace peergate::e2e {
namespace {

TEST(CtypesE2e, PythonGetsTheDecisionFromLibpeergate) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    // TSan's runtime needs static TLS that a dlopen into python3 no longer has.
    GTEST_SKIP() << "a sanitizer-instrumented libpeergate.so cannot be loaded into an uninstrumented python3";
#endif
    if (::access("/usr/bin/python3", X_OK) != 0) {
        GTEST_SKIP() << "no /usr/bin/python3 on this host";
    }
    auto env = base_env();
    env.set("PEERGATE_NVML_LIB", "/nonexistent/libnvidia-ml.so.1");
    env.set("PEERGATE_NVIDIA_SMI", kScripts + "/smi_bridged_a100_4x.sh");
    env.set("PEERGATE_HOST_ROOT", kFixtures + "/host/vm-dma");
    env.set("GGML_CUDA_P2P", "0");
    util::Command command;
    command.argv = {"/usr/bin/python3", kScripts + "/gate_ctypes_example.py",
                    std::string(PEERGATE_BUILD_DIR) + "/lib/libpeergate.so", "0,1"};
    command.env = env;
    const auto vetoed = util::run_process(command);
    ASSERT_TRUE(vetoed.has_value());
    EXPECT_EQ(vetoed->out, "1 False \"GGML_CUDA_P2P='0' reads as off, so P2P stays off (the variable is removed: "
                           "llama.cpp turns peer access on for any value)\" <unset>\n") << vetoed->err;
    command.env.unset("GGML_CUDA_P2P");
    const auto allowed = util::run_process(command);
    ASSERT_TRUE(allowed.has_value());
    EXPECT_EQ(allowed->out, "0 True null 1\n") << allowed->err;
}

// A built-in machine name resolves beside libpeergate.so, not beside python3.
TEST(CtypesE2e, ABuiltInMachineNameResolvesBesideTheLibrary) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    GTEST_SKIP() << "a sanitizer-instrumented libpeergate.so cannot be loaded into an uninstrumented python3";
#endif
    if (::access("/usr/bin/python3", X_OK) != 0) {
        GTEST_SKIP() << "no /usr/bin/python3 on this host";
    }
    auto env = base_env();
    env.set("PEERGATE_SIMULATE", "bridged-a100-4x");
    util::Command command;
    command.argv = {"/usr/bin/python3", kScripts + "/gate_ctypes_example.py",
                    std::string(PEERGATE_BUILD_DIR) + "/lib/libpeergate.so", "0,1"};
    command.env = env;
    const auto run = util::run_process(command);
    ASSERT_TRUE(run.has_value());
    EXPECT_EQ(run->out.find("no built-in machine"), std::string::npos) << run->out;
    EXPECT_EQ(run->out, "0 True null 1\n") << run->err;
}

}  // namespace
}  // namespace peergate::e2e
