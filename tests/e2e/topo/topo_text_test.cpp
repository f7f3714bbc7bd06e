// SPDX-License-Identifier: Apache-2.0
// `peergate topo` text output: colour only on a terminal, and never with NO_COLOR or
// --no-color. The colour cases run the binary on a pseudo-terminal, so that the "no ESC
// byte" assertions are not trivially true of a pipe.
#include "support/fixture_files.hpp"
#include "support/peergate_process.hpp"

#include <gtest/gtest.h>

#include <poll.h>
#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <vector>

namespace peergate {
namespace {

// Runs peergate with stdout and stderr on a pseudo-terminal; returns what it printed.
std::string run_on_tty(const std::vector<std::string>& args, const util::EnvMap& env) {
    std::vector<std::string> argv_strings{PEERGATE_BINARY};
    argv_strings.insert(argv_strings.end(), args.begin(), args.end());
    util::CStringArray argv(argv_strings);
    util::CStringArray envp(env.to_strings());
    int master = -1;
    const pid_t pid = ::forkpty(&master, nullptr, nullptr, nullptr);
    if (pid == 0) {
        ::execve(PEERGATE_BINARY, argv.data(), envp.data());
        ::_exit(127);
    }
    if (pid < 0) {
        ADD_FAILURE() << "forkpty failed";
        return "";
    }
    std::string out;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (std::chrono::steady_clock::now() < deadline) {
        pollfd fd{master, POLLIN, 0};
        if (::poll(&fd, 1, 1000) <= 0) {
            continue;
        }
        char buffer[4096];
        const ssize_t n = ::read(master, buffer, sizeof buffer);
        if (n <= 0) {
            break;  // EIO once the child has closed the terminal
        }
        out.append(buffer, static_cast<std::size_t>(n));
    }
    ::close(master);
    int status = 0;
    ::waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << out;
    return out;
}

std::vector<std::string> topo_args() {
    return {"topo", "--from", test::fixture_path("topo_m", "unsloth_TOPO_BRIDGED_4X.txt")};
}

bool has_escape(const std::string& text) {
    return text.find('\x1b') != std::string::npos;
}

TEST(TopoText, TerminalGetsColourForNvlinkAndPcie) {
    const std::string out = run_on_tty(topo_args(), test::clean_env());
    EXPECT_TRUE(has_escape(out)) << "the control case: colour is on for a terminal";
    EXPECT_NE(out.find("\x1b[32mNV12"), std::string::npos) << out;
    EXPECT_NE(out.find("\x1b[31mSYS"), std::string::npos) << out;
}

TEST(TopoText, NoColorEnvironmentTurnsColourOff) {
    auto env = test::clean_env();
    env.set("NO_COLOR", "1");
    const std::string out = run_on_tty(topo_args(), env);
    EXPECT_FALSE(has_escape(out)) << out;
    EXPECT_NE(out.find("NV12"), std::string::npos);
}

TEST(TopoText, NoColorFlagTurnsColourOff) {
    auto args = topo_args();
    args.emplace_back("--no-color");
    const std::string out = run_on_tty(args, test::clean_env());
    EXPECT_FALSE(has_escape(out)) << out;
}

TEST(TopoText, PipeGetsNoColourAndTheWholeReport) {
    const auto run = test::run_peergate(topo_args());
    EXPECT_EQ(run.process.exit_code, 0) << run.process.err;
    const std::string& out = run.process.out;
    EXPECT_FALSE(has_escape(out)) << out;
    EXPECT_NE(out.find("source: file"), std::string::npos) << out;
    EXPECT_NE(out.find("GPU0   X    NV12  SYS   SYS   0-23          0"), std::string::npos) << out;
    EXPECT_NE(out.find("NVLink islands: {0,1} {2,3}"), std::string::npos) << out;
}

// Issue 52: on a DGX H100 the second socket's CPU list (52-103,156-207) is wider than the
// column's old fixed width, and the NUMA node was glued onto it ("52-103,156-2071"). Each
// column is now as wide as its widest cell, two spaces apart, and the header lines up.
TEST(TopoText, AWideCpuListKeepsItsOwnColumn) {
    const auto run = test::run_peergate(
        {"topo",
         "--from",
         test::fixture_path("topo_m", "ml-engineering-perf_8xH100_NV18_ht_cpulists.txt")});
    ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
    const std::string& out = run.process.out;
    EXPECT_NE(
        out.find("      GPU0  GPU1  GPU2  GPU3  GPU4  GPU5  GPU6  GPU7  CPU Affinity    NUMA\n"),
        std::string::npos)
        << out;
    EXPECT_NE(out.find("GPU0   X    NV18  NV18  NV18  NV18  NV18  NV18  NV18  0-51,104-155    0\n"),
              std::string::npos)
        << out;
    EXPECT_NE(out.find("GPU4  NV18  NV18  NV18  NV18   X    NV18  NV18  NV18  52-103,156-207  1\n"),
              std::string::npos)
        << out;
    EXPECT_EQ(out.find("156-2071"), std::string::npos) << out;
}

}  // namespace
}  // namespace peergate
