// SPDX-License-Identifier: Apache-2.0
// --simulate's host roots live under $TMPDIR/peergate-sim-<uid>, a name anyone can predict
// (issue 34, item 4). Only a directory this user made and alone can write is reused: one
// another user made first (with proc/cmdline -> /etc/shadow inside), a world-writable one or
// a link is refused with what was found, and nothing is read from it.
#include "support/peergate_process.hpp"
#include "support/sim_machines.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>

namespace peergate::test {
namespace {

namespace fs = std::filesystem;

struct Planted {
    ScratchDir scratch;
    fs::path base;
    util::EnvMap env = clean_env();

    Planted() : base(fs::path(scratch.path()) / fmt::format("peergate-sim-{}", ::getuid())) {
        env.set("TMPDIR", scratch.path());
    }

    // doctor prints the kernel command line: a planted proc/cmdline would show in it.
    PeergateRun doctor() const {
        return run_peergate({"--simulate", "single-h200", "doctor", "--json"}, env);
    }

    PeergateRun topo() const {
        return run_peergate({"--simulate", "single-h200", "topo", "--json"}, env);
    }
};

void expect_refused(const PeergateRun& run, const std::string& what) {
    EXPECT_EQ(run.process.exit_code, 2) << run.process.out;
    EXPECT_NE(run.process.err.find("refusing to use"), std::string::npos) << run.process.err;
    EXPECT_NE(run.process.err.find(what), std::string::npos) << run.process.err;
    EXPECT_EQ(run.process.out.find("shadow-secret"), std::string::npos);
}

TEST(SimulatePrivateRoot, AWorldWritableDirectoryIsRefused) {
    Planted planted;
    fs::create_directory(planted.base);
    ASSERT_EQ(::chmod(planted.base.c_str(), 0777), 0);
    expect_refused(planted.doctor(), "its mode is 0777");
}

TEST(SimulatePrivateRoot, ALinkInItsPlaceIsRefused) {
    Planted planted;
    fs::create_directory(fs::path(planted.scratch.path()) / "elsewhere");
    fs::create_directory_symlink(fs::path(planted.scratch.path()) / "elsewhere", planted.base);
    expect_refused(planted.doctor(), "a symbolic link");
}

// Another user's directory: made here as root and given to nobody, whose planted host root
// would print a secret through proc/cmdline.
TEST(SimulatePrivateRoot, AnotherUsersDirectoryIsRefused) {
    if (::geteuid() != 0) {
        GTEST_SKIP() << "needs root to give a directory to another user";
    }
    Planted planted;
    fs::create_directory(planted.base);
    ASSERT_EQ(::chmod(planted.base.c_str(), 0700), 0);
    ASSERT_EQ(::chown(planted.base.c_str(), 65534, 65534), 0);
    expect_refused(planted.doctor(), "belongs to uid 65534");
}

TEST(SimulatePrivateRoot, ItsOwnPrivateDirectoryIsMadeAndReused) {
    Planted planted;
    const auto first = planted.topo();
    EXPECT_EQ(first.process.err.find("refusing"), std::string::npos) << first.process.err;

    struct stat st {};

    ASSERT_EQ(::lstat(planted.base.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0700U);
    const auto second = planted.topo();
    EXPECT_EQ(second.process.out, first.process.out);
}

}  // namespace
}  // namespace peergate::test
