// SPDX-License-Identifier: Apache-2.0
// exec --for vllm and --for sglang on a simulated PCIe box that drops peer copies: the
// warnings reach the launch log, the engine's own P2P cache is named when it would overrule
// its test (vLLM's under XDG_CACHE_HOME, SGLang's under ~/.cache/sglang), and
// --disable-custom-all-reduce on the command line makes both moot.
#include "gate_e2e_support.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace peergate::e2e {
namespace {

namespace fs = std::filesystem;

class ExecVllm : public ::testing::Test {
protected:
    void SetUp() override {
        cache_ = fs::path(PEERGATE_BUILD_DIR) / ("exec-vllm-cache-" + std::to_string(::getpid()));
        // What vLLM and SGLang write after their one small copy passed
        // (json.dump(cache, f, indent=4)).
        for (const auto& dir : {cache_ / "vllm", cache_ / "home" / ".cache" / "sglang"}) {
            fs::create_directories(dir);
            std::ofstream(dir / "gpu_p2p_access_cache_for_0,1.json")
                << "{\n    \"0->0\": true,\n    \"0->1\": true,\n    \"1->0\": true,\n"
                   "    \"1->1\": true\n}";
        }
    }

    void TearDown() override { fs::remove_all(cache_); }

    util::ProcessResult exec_vllm(std::vector<std::string> command,
                                  const std::string& profile = "vllm") const {
        auto env = base_env();
        env.set("XDG_CACHE_HOME", cache_.string());
        env.set("HOME", (cache_ / "home").string());
        std::vector<std::string> args{"--simulate",
                                      "pcie-rtx6000ada-2x-iommu",
                                      "exec",
                                      "--for",
                                      profile,
                                      "--gpus",
                                      "0,1",
                                      "--"};
        args.insert(args.end(), command.begin(), command.end());
        return peergate(args, env);
    }

    fs::path cache_;
};

TEST_F(ExecVllm, TheLaunchLogNamesVllmsCacheAndTheFlag) {
    const auto r = exec_vllm({"true"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("peergate: warning: vLLM will read " + cache_.string() +
                         "/vllm/gpu_p2p_access_cache_for_0,1.json, which says peer access works "
                         "(0->1, 1->0)"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("peergate: warning: vLLM: also pass --disable-custom-all-reduce"),
              std::string::npos)
        << r.err;
}

TEST_F(ExecVllm, TheFlagOnTheCommandLineSilencesBoth) {
    const auto r = exec_vllm({"true", "--disable-custom-all-reduce"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err.find("warning: vLLM"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("VLLM_SKIP_P2P_CHECK=0"), std::string::npos) << r.err;
}

TEST_F(ExecVllm, SglangGetsItsOwnCacheAndFlagNamed) {
    auto r = exec_vllm({"env"}, "sglang");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("SGLANG_SKIP_P2P_CHECK=0\n"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("VLLM_SKIP_P2P_CHECK"), std::string::npos) << r.out;
    EXPECT_NE(r.err.find("peergate: warning: SGLang will read " + cache_.string() +
                         "/home/.cache/sglang/gpu_p2p_access_cache_for_0,1.json"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(r.err.find("vLLM"), std::string::npos) << r.err;
    r = exec_vllm({"true", "--disable-custom-all-reduce"}, "sglang");
    EXPECT_EQ(r.err.find("warning: SGLang"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace peergate::e2e
