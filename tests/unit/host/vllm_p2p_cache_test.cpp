// SPDX-License-Identifier: Apache-2.0
// vLLM's P2P cache files: where vLLM keeps them and what they say.
#include "sources/host/vllm_p2p_cache.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace peergate::sources::host {
namespace {

namespace fs = std::filesystem;

util::EnvMap env(std::initializer_list<std::pair<const char*, const char*>> vars) {
    util::EnvMap e;
    for (const auto& [name, value] : vars) {
        e.set(name, value);
    }
    return e;
}

TEST(VllmP2pCache, TheRootFollowsVllmsOwnDefaults) {
    EXPECT_EQ(vllm_cache_root(env({{"VLLM_CACHE_ROOT", "/srv/vllm"}, {"HOME", "/home/u"}})),
              "/srv/vllm");
    EXPECT_EQ(vllm_cache_root(env({{"VLLM_CACHE_ROOT", "~/vc"}, {"HOME", "/home/u"}})),
              "/home/u/vc");
    EXPECT_EQ(vllm_cache_root(env({{"XDG_CACHE_HOME", "/x"}, {"HOME", "/home/u"}})), "/x/vllm");
    EXPECT_EQ(vllm_cache_root(env({{"HOME", "/home/u"}})), "/home/u/.cache/vllm");
    EXPECT_EQ(vllm_cache_root(env({})), "");
}

TEST(VllmP2pCache, ReadsTheEntriesThatAreTrue) {
    // The shape vLLM's gpu_p2p_access_check writes (json.dump(cache, f, indent=4)).
    const auto works =
        parse_vllm_p2p_cache("{\n    \"0->0\": true,\n    \"0->1\": false,\n    \"1->0\": true\n}");
    ASSERT_TRUE(works.has_value());
    EXPECT_EQ(*works, (std::vector<std::string>{"0->0", "1->0"}));
    EXPECT_FALSE(parse_vllm_p2p_cache("[true]").has_value());
    EXPECT_FALSE(parse_vllm_p2p_cache(R"({"0->1": "yes"})").has_value());
    EXPECT_FALSE(parse_vllm_p2p_cache("{").has_value());
}

TEST(VllmP2pCache, ListsTheFilesOfADirectoryByTheirDevices) {
    const fs::path root =
        fs::temp_directory_path() / ("peergate-vllm-cache-" + std::to_string(::getpid()));
    fs::create_directories(root);
    std::ofstream(root / "gpu_p2p_access_cache_for_0,1.json") << R"({"0->1": true})";
    std::ofstream(root / "gpu_p2p_access_cache_for_2,3.json") << "not json";
    std::ofstream(root / "other.json") << R"({"0->1": true})";
    const auto caches = read_vllm_p2p_caches(root.string());
    fs::remove_all(root);
    ASSERT_EQ(caches.size(), 1U);
    EXPECT_EQ(caches[0].visible_devices, "0,1");
    EXPECT_EQ(caches[0].says_works, (std::vector<std::string>{"0->1"}));
    EXPECT_TRUE(read_vllm_p2p_caches("/nonexistent/peergate").empty());
}

}  // namespace
}  // namespace peergate::sources::host
