// SPDX-License-Identifier: Apache-2.0
// An ordinary user whose ~/.cache cannot be read (issue 34, item 5): the gate decides and says
// why there is no cached verdict, instead of ending in "internal error: filesystem error".
#include "support/peergate_process.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>

namespace peergate::test {
namespace {

namespace fs = std::filesystem;

constexpr const char* kNobody = "65534";

TEST(GateUnreadableHome, AnUnreadableCacheDirectoryIsNoVerdictNotACrash) {
    const fs::path home =
        fs::temp_directory_path() / ("peergate-unreadable-home-" + std::to_string(::getpid()));
    fs::remove_all(home);
    fs::create_directories(home / ".cache" / "peergate");
    fs::permissions(home / ".cache", fs::perms::owner_all);  // 0700: the owner's alone
    auto env = clean_env();
    env.unset("PEERGATE_CACHE_DIR");
    env.set("HOME", home.string());
    env.set("PEERGATE_FORCE_P2P", "1");
    util::Command command;
    // As root, become another user, for whom root's 0700 directory is unreadable; as that
    // user, a 0000 directory is unreadable to oneself.
    if (::geteuid() == 0) {
        command.argv = {"setpriv",
                        std::string("--reuid=") + kNobody,
                        std::string("--regid=") + kNobody,
                        "--clear-groups"};
    } else {
        fs::permissions(home / ".cache", fs::perms::none);
    }
    command.argv.insert(
        command.argv.end(),
        {PEERGATE_BINARY, "--simulate", "bridged-a100-4x", "gate", "--gpus", "0,2", "--json"});
    command.env = env;
    command.timeout = std::chrono::seconds(60);
    const auto run = util::run_process(command);
    fs::permissions(home / ".cache", fs::perms::owner_all);
    fs::remove_all(home);
    ASSERT_TRUE(run.has_value());
    EXPECT_EQ(run->err.find("internal error"), std::string::npos) << run->err;
    const auto doc = nlohmann::json::parse(run->out, nullptr, false);
    ASSERT_FALSE(doc.is_discarded()) << run->out << run->err;
    // A cache that cannot even be looked for may hold a loss: FORCE is refused.
    EXPECT_EQ(doc["rule"], "cache_untrusted") << doc.dump(2);
    EXPECT_EQ(run->exit_code, 1);
}

}  // namespace
}  // namespace peergate::test
