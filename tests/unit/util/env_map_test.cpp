// SPDX-License-Identifier: Apache-2.0
#include "util/env_map.hpp"

#include <gtest/gtest.h>

#include <cstring>

namespace peergate::util {
namespace {

TEST(EnvMap, FromEnvpKeepsTheFirstOfDuplicatesAsGetenvDoes) {
    const char* envp[] = {"A=1", "B=two", "A=2", nullptr};
    const auto env = EnvMap::from_envp(envp);
    EXPECT_EQ(env.get("A"), "1");
    EXPECT_EQ(env.get("B"), "two");
    EXPECT_EQ(env.entries().size(), 2U);
}

TEST(EnvMap, FromEnvpIgnoresEntriesWithoutANameAndKeepsEmptyValues) {
    const char* envp[] = {"NOEQUALS", "=nameless", "EMPTY=", "EQ=a=b", nullptr};
    const auto env = EnvMap::from_envp(envp);
    EXPECT_FALSE(env.contains("NOEQUALS"));
    EXPECT_FALSE(env.contains(""));
    ASSERT_TRUE(env.contains("EMPTY"));
    EXPECT_EQ(env.get("EMPTY"), "") << "set-but-empty is not unset";
    EXPECT_EQ(env.get("EQ"), "a=b") << "only the first '=' separates";
    EXPECT_EQ(env.entries().size(), 2U);
}

TEST(EnvMap, FromNullEnvpIsEmpty) {
    EXPECT_TRUE(EnvMap::from_envp(nullptr).entries().empty());
    const char* envp[] = {nullptr};
    EXPECT_TRUE(EnvMap::from_envp(envp).entries().empty());
}

TEST(EnvMap, IsOneMeansExactlyTheStringOne) {
    EnvMap env;
    const std::vector<std::pair<std::string, bool>> cases{
        {"1", true},
        {"0", false},
        {"", false},
        {"01", false},
        {"1 ", false},
        {" 1", false},
        {"true", false},
        {"yes", false},
        {"11", false},
    };
    for (const auto& [value, expected] : cases) {
        env.set("GGML_CUDA_P2P", value);
        EXPECT_EQ(env.is_one("GGML_CUDA_P2P"), expected) << "'" << value << "'";
    }
    env.unset("GGML_CUDA_P2P");
    EXPECT_FALSE(env.is_one("GGML_CUDA_P2P"));
}

TEST(EnvMap, SetOverwritesAndUnsetRemoves) {
    EnvMap env;
    env.set("X", "1");
    env.set("X", "2");
    EXPECT_EQ(env.get("X"), "2");
    env.unset("X");
    env.unset("NEVER_SET");
    EXPECT_FALSE(env.get("X").has_value());
}

TEST(EnvMap, ToStringsIsSortedByName) {
    EnvMap env;
    env.set("PATH", "/bin");
    env.set("A", "x=y");
    EXPECT_EQ(env.to_strings(), (std::vector<std::string>{"A=x=y", "PATH=/bin"}));
}

TEST(CStringArray, IsNullTerminatedAndPointsAtItsOwnCopies) {
    CStringArray array({"A=1", "B=2"});
    char* const* data = array.data();
    EXPECT_STREQ(data[0], "A=1");
    EXPECT_STREQ(data[1], "B=2");
    EXPECT_EQ(data[2], nullptr);
}

}  // namespace
}  // namespace peergate::util
