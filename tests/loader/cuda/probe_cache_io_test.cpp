// SPDX-License-Identifier: Apache-2.0
// The verdict cache as the gate consults it: written by the probe's code, read back against
// the machine now (driver through dlopen of the simulated driver, host facts under a host
// root), and invalidated when the boot or the kernel command line changes.
#include "pipeline/probe_cache_io.hpp"

#include "probe_pass.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace peergate {
namespace {

namespace fs = std::filesystem;

void write(const fs::path& path, const std::string& text) {
    fs::create_directories(path.parent_path());
    std::ofstream(path) << text;
}

class ProbeCacheIo : public ::testing::Test {
protected:
    void SetUp() override {
        ::setenv("PEERGATE_SIM_MACHINE",
                 PEERGATE_TEST_FIXTURES "/machines/probe-intact-2x.json",
                 1);  // NOLINT
        root_ = fs::temp_directory_path() / ("peergate-cache-io-" + std::to_string(::getpid()));
        fs::remove_all(root_);
        write(root_ / "host/proc/cmdline", "root=/dev/sda1\n");
        write(root_ / "host/proc/sys/kernel/random/boot_id", "boot-1\n");
        inv_.seams.cuda_library = PEERGATE_SIM_CUDA;
        inv_.seams.host_root = (root_ / "host").string();
        inv_.output.quiet = true;
    }

    void TearDown() override { fs::remove_all(root_); }

    model::ProbeResult concurrent_pass() const {
        return test::concurrent_passes({0, 1}, {{0, 1}, {1, 0}}, 3);
    }

    fs::path root_;
    pipeline::Context inv_;
};

TEST_F(ProbeCacheIo, AFreshResultOnThisBootIsTrustedUntilTheBootOrCmdlineChanges) {
    const std::string dir = (root_ / "cache").string();
    const model::Discovery no_topology;
    auto setup = pipeline::set_up_cuda(inv_, no_topology, {}, std::chrono::seconds(10));
    ASSERT_TRUE(setup.has_value()) << setup.error().message;
    pipeline::store_probe_result(inv_, dir, *setup, no_topology, concurrent_pass());
    ASSERT_TRUE(fs::exists(pipeline::probe_cache_path(inv_, dir)));

    auto verdict = pipeline::consult_probe_cache(inv_, no_topology, dir);
    EXPECT_TRUE(verdict.valid) << verdict.reason;
    EXPECT_EQ(verdict.concurrent_pass_pairs, (std::vector<std::pair<int, int>>{{0, 1}, {1, 0}}));

    write(root_ / "host/proc/cmdline", "root=/dev/sda1 iommu=pt\n");
    verdict = pipeline::consult_probe_cache(inv_, no_topology, dir);
    EXPECT_FALSE(verdict.valid);
    EXPECT_NE(verdict.reason.find("kernel_cmdline"), std::string::npos) << verdict.reason;

    write(root_ / "host/proc/cmdline", "root=/dev/sda1\n");
    write(root_ / "host/proc/sys/kernel/random/boot_id", "boot-2\n");
    verdict = pipeline::consult_probe_cache(inv_, no_topology, dir);
    EXPECT_FALSE(verdict.valid);
    EXPECT_NE(verdict.reason.find("boot_id"), std::string::npos) << verdict.reason;
}

TEST_F(ProbeCacheIo, NoCacheIsNotTrusted) {
    const auto verdict =
        pipeline::consult_probe_cache(inv_, model::Discovery{}, (root_ / "empty").string());
    EXPECT_FALSE(verdict.valid);
    EXPECT_NE(verdict.reason.find("no cached probe result"), std::string::npos) << verdict.reason;
}

TEST(ProbeCacheDir, FlagThenXdgThenHome) {
    util::EnvMap env;
    EXPECT_EQ(pipeline::probe_cache_dir(env, "", false), "");
    env.set("HOME", "/home/u");
    EXPECT_EQ(pipeline::probe_cache_dir(env, "", false), "/home/u/.cache/peergate");
    env.set("XDG_CACHE_HOME", "/x");
    EXPECT_EQ(pipeline::probe_cache_dir(env, "", false), "/x/peergate");
    EXPECT_EQ(pipeline::probe_cache_dir(env, "/flag", false), "/flag");
    env.set("PEERGATE_CACHE_DIR", "/srv/cache");
    EXPECT_EQ(pipeline::probe_cache_dir(env, "", false), "/srv/cache");
    EXPECT_EQ(pipeline::probe_cache_dir(env, "/flag", false), "/flag");
}

// Root's cache does not depend on HOME (sudo -E, su without '-', Slurm with none): the same
// node gives the same verdict from a root shell and from a health check (issue 34).
TEST(ProbeCacheDir, RootsIsTheSystemDirectoryWhateverHomeSays) {
    util::EnvMap env;
    EXPECT_EQ(pipeline::probe_cache_dir(env, "", true), "/var/cache/peergate");
    env.set("HOME", "/home/u");
    env.set("XDG_CACHE_HOME", "/home/u/.cache");
    EXPECT_EQ(pipeline::probe_cache_dir(env, "", true), "/var/cache/peergate");
    env.set("PEERGATE_CACHE_DIR", "/srv/cache");  // named on purpose: still owner-checked
    EXPECT_EQ(pipeline::probe_cache_dir(env, "", true), "/srv/cache");
}

// One file per host (nodes sharing an NFS $HOME) and per simulated machine (a demo on a GPU
// host), so neither replaces another's result.
TEST(ProbeCacheFile, OnePerHostAndOnePerSimulatedMachine) {
    EXPECT_EQ(pipeline::probe_cache_file_name("gpu-node-07.cluster", ""),
              "probe-gpu-node-07.cluster.json");
    EXPECT_EQ(pipeline::probe_cache_file_name("gpu-node-07",
                                              "/usr/share/peergate/machines/dgx1-v100.json"),
              "probe-simulated-dgx1-v100.json");
    EXPECT_EQ(pipeline::probe_cache_file_name("a/b c", ""), "probe-a_b_c.json");
    EXPECT_EQ(pipeline::probe_cache_file_name("", ""), "probe-localhost.json");
    EXPECT_EQ(pipeline::probe_cache_file_name("..", ""),
              "probe-...json");  // stays in the directory
}

}  // namespace
}  // namespace peergate
