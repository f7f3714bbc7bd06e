// SPDX-License-Identifier: Apache-2.0
// doctor names vLLM's own P2P cache when it claims peer access on a host that drops PCIe peer
// copies (the simulated RTX 6000 Ada pair under a translating IOMMU).
#include "support/peergate_process.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace peergate::test {
namespace {

namespace fs = std::filesystem;

TEST(DoctorVllm, TheCacheVllmWouldTrustIsNamed) {
    const fs::path cache =
        fs::path(PEERGATE_BUILD_DIR) / ("doctor-vllm-cache-" + std::to_string(::getpid()));
    fs::create_directories(cache / "vllm");
    auto env = clean_env();
    env.set("XDG_CACHE_HOME", cache.string());
    const std::vector<std::string> args{
        "--simulate", "pcie-rtx6000ada-2x-iommu", "doctor", "--json"};

    const auto without = run_peergate(args, env);
    EXPECT_EQ(find_finding(stdout_json(without), "vllm_p2p_cache_trusted"), nullptr);

    std::ofstream(cache / "vllm" / "gpu_p2p_access_cache_for_0,1.json")
        << "{\n    \"0->0\": true,\n    \"0->1\": true,\n    \"1->0\": true,\n"
           "    \"1->1\": true\n}";
    const auto with = run_peergate(args, env);
    fs::remove_all(cache);
    EXPECT_EQ(with.process.exit_code, 1) << with.process.err;
    EXPECT_NE(find_finding(stdout_json(with), "vllm_p2p_cache_trusted"), nullptr)
        << with.process.out;
}

}  // namespace
}  // namespace peergate::test
