// SPDX-License-Identifier: Apache-2.0
// The verdict cache's trust on disk (docs/security.md): written 0644 in a 0755 directory
// whatever the umask, stores from many threads add up under the lock, and a cache that is
// there but cannot be read or trusted is doubt, which refuses FORCE.
#include "pipeline/probe_cache_io.hpp"
#include "probe_pass.hpp"
#include "report/probe/cache_json.hpp"
#include "util/atomic_file.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

namespace peergate {
namespace {

namespace fs = std::filesystem;

class ProbeCacheTrust : public ::testing::Test {
protected:
    void SetUp() override {
        ::setenv("PEERGATE_SIM_MACHINE",
                 PEERGATE_TEST_FIXTURES "/machines/probe-intact-2x.json",
                 1);  // NOLINT
        root_ = fs::temp_directory_path() / ("peergate-cache-trust-" + std::to_string(::getpid()));
        fs::remove_all(root_);
        fs::create_directories(root_ / "host/proc/sys/kernel/random");
        std::ofstream(root_ / "host/proc/cmdline") << "root=/dev/sda1\n";
        std::ofstream(root_ / "host/proc/sys/kernel/random/boot_id") << "boot-1\n";
        ctx_.seams.cuda_library = PEERGATE_SIM_CUDA;
        ctx_.seams.host_root = (root_ / "host").string();
        ctx_.output.quiet = true;
        dir_ = (root_ / "cache" / "peergate").string();
    }

    void TearDown() override { fs::remove_all(root_); }

    // One ordered pair's pass, cells included.
    static model::ProbeResult one_pair_pass(int src, int dst) {
        return test::concurrent_passes({src, dst}, {{src, dst}}, 1);
    }

    std::string cache_file() const { return pipeline::probe_cache_path(ctx_, dir_); }

    fs::path root_;
    std::string dir_;
    pipeline::Context ctx_;
};

TEST_F(ProbeCacheTrust, TheCacheIsWritten0644InA0755DirectoryWhateverTheUmask) {
    const model::Discovery none;
    auto setup = pipeline::set_up_cuda(ctx_, none, {}, std::chrono::seconds(10));
    ASSERT_TRUE(setup.has_value()) << setup.error().message;
    const mode_t saved = ::umask(0);
    pipeline::store_probe_result(ctx_, dir_, *setup, none, one_pair_pass(0, 1));
    ::umask(saved);

    struct stat st {};

    ASSERT_EQ(::stat(cache_file().c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0644U);
    ASSERT_EQ(::stat(dir_.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0755U);
    EXPECT_TRUE(pipeline::consult_probe_cache(ctx_, none, dir_).valid)
        << "what peergate writes, it trusts";
}

// Without the lock, stores that overlap lose each other's pairs (issue 34, item 3).
TEST_F(ProbeCacheTrust, StoresFromManyThreadsAllLand) {
    const model::Discovery none;
    auto setup = pipeline::set_up_cuda(ctx_, none, {}, std::chrono::seconds(10));
    ASSERT_TRUE(setup.has_value()) << setup.error().message;
    constexpr int kWriters = 8;
    std::vector<std::thread> writers;
    for (int i = 0; i < kWriters; ++i) {
        writers.emplace_back([&, i] {
            pipeline::store_probe_result(ctx_, dir_, *setup, none, one_pair_pass(i, i + 100));
        });
    }
    for (auto& writer : writers) {
        writer.join();
    }
    const auto text = util::read_file(cache_file());
    ASSERT_TRUE(text.has_value()) << text.error().message;
    const auto entry = report::probe::probe_cache_from_text(*text, nullptr);
    ASSERT_TRUE(entry.has_value());
    EXPECT_EQ(entry->result.pairs.size(), static_cast<std::size_t>(kWriters));
}

TEST_F(ProbeCacheTrust, ACacheThatIsThereButCannotBeTrustedIsDoubt) {
    const model::Discovery none;
    fs::create_directories(dir_);
    EXPECT_EQ(pipeline::consult_probe_cache(ctx_, none, dir_).doubt, "") << "absent: no doubt";

    ASSERT_EQ(::mkfifo(cache_file().c_str(), 0644), 0);
    auto verdict = pipeline::consult_probe_cache(ctx_, none, dir_);
    EXPECT_FALSE(verdict.valid);
    EXPECT_NE(verdict.doubt.find("cannot be trusted"), std::string::npos) << verdict.doubt;
    EXPECT_NE(verdict.doubt.find("FIFO"), std::string::npos) << verdict.doubt;

    fs::remove(cache_file());
    std::ofstream(cache_file()) << "{\"schema\": \"peergate.probe-cache/v1\", \"ident";
    verdict = pipeline::consult_probe_cache(ctx_, none, dir_);
    EXPECT_NE(verdict.doubt.find("is unreadable"), std::string::npos) << verdict.doubt;

    fs::remove(cache_file());
    fs::create_symlink(root_ / "host/proc/cmdline", cache_file());
    verdict = pipeline::consult_probe_cache(ctx_, none, dir_);
    EXPECT_NE(verdict.doubt.find("symbolic link"), std::string::npos) << verdict.doubt;
}

}  // namespace
}  // namespace peergate
