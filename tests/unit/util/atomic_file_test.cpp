// SPDX-License-Identifier: Apache-2.0
#include "util/atomic_file.hpp"

#include <gtest/gtest.h>

#include <sys/resource.h>
#include <sys/stat.h>

#include <csignal>
#include <filesystem>
#include <fstream>

namespace peergate::util {
namespace {

namespace fs = std::filesystem;

// A fresh directory per test, removed afterwards.
class AtomicFile : public ::testing::Test {
protected:
    void SetUp() override {
        std::string pattern = (fs::temp_directory_path() / "peergate-atomic-XXXXXX").string();
        ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
        dir_ = pattern;
    }

    void TearDown() override { fs::remove_all(dir_); }

    std::vector<std::string> listing() const {
        std::vector<std::string> names;
        for (const auto& entry : fs::directory_iterator(dir_)) {
            names.push_back(entry.path().filename().string());
        }
        std::sort(names.begin(), names.end());
        return names;
    }

    fs::path dir_;
};

mode_t mode_of(const std::string& path) {
    struct stat st {};

    EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
    return st.st_mode & 0777U;
}

// Sets the process umask for one scope (the tests run on one thread).
class ScopedUmask {
public:
    explicit ScopedUmask(mode_t mask) : saved_(::umask(mask)) {}

    ~ScopedUmask() { ::umask(saved_); }

    ScopedUmask(const ScopedUmask&) = delete;
    ScopedUmask& operator=(const ScopedUmask&) = delete;

private:
    mode_t saved_;
};

TEST_F(AtomicFile, WritesANewFileAndLeavesNoTemporary) {
    const ScopedUmask usual(022);
    const std::string path = (dir_ / "out.json").string();
    ASSERT_TRUE(write_file_atomically(path, "{\"a\": 1}\n").has_value());
    EXPECT_EQ(*read_file(path), "{\"a\": 1}\n");
    EXPECT_EQ(listing(), std::vector<std::string>{"out.json"});
    EXPECT_EQ(mode_of(path), 0644U) << "an ordinary document, not mkstemp's 0600";
}

TEST_F(AtomicFile, ANewFileTakesItsModeFromTheUmask) {
    const std::string shared = (dir_ / "group.prom").string();
    const std::string own = (dir_ / "own.json").string();
    {
        const ScopedUmask group(002);
        ASSERT_TRUE(write_file_atomically(shared, "x\n").has_value());
    }
    {
        const ScopedUmask strict(077);
        ASSERT_TRUE(write_file_atomically(own, "x\n").has_value());
    }
    EXPECT_EQ(mode_of(shared), 0664U);
    EXPECT_EQ(mode_of(own), 0600U) << "a umask of 077 keeps what is written private";
}

TEST_F(AtomicFile, AReplacedFileKeepsItsMode) {
    const ScopedUmask usual(022);
    const std::string path = (dir_ / "labels").string();
    std::ofstream(path) << "old\n";
    ASSERT_EQ(::chmod(path.c_str(), 0640), 0);
    ASSERT_TRUE(write_file_atomically(path, "new\n").has_value());
    EXPECT_EQ(*read_file(path), "new\n");
    EXPECT_EQ(mode_of(path), 0640U) << "the operator's chmod survives the rewrite";
}

// A link planted where root writes (docs/security.md): never followed, never replaced, and the
// error says why; the file it names is left as it was.
TEST_F(AtomicFile, ASymbolicLinkAtTheTargetIsRefused) {
    const fs::path real = dir_ / "real.prom";
    const fs::path link = dir_ / "link.prom";
    std::ofstream(real) << "old\n";
    fs::create_symlink(real.filename(), link);
    const auto written = write_file_atomically(link.string(), "new\n");
    ASSERT_FALSE(written.has_value());
    EXPECT_NE(written.error().message.find("is a symbolic link"), std::string::npos)
        << written.error().message;
    EXPECT_EQ(*read_file(real.string()), "old\n");
    EXPECT_TRUE(fs::is_symlink(link));
    EXPECT_EQ(listing(), (std::vector<std::string>{"link.prom", "real.prom"}));
}

TEST_F(AtomicFile, ADanglingSymbolicLinkIsRefusedToo) {
    const fs::path link = dir_ / "dangling";
    fs::create_symlink("/nonexistent/peergate-target", link);
    const auto written = write_file_atomically(link.string(), "new\n");
    ASSERT_FALSE(written.has_value());
    EXPECT_TRUE(fs::is_symlink(link));
    EXPECT_FALSE(fs::exists("/nonexistent/peergate-target"));
}

// A directory that is itself a link (its last component) is refused the same way.
TEST_F(AtomicFile, ATargetDirectoryThatIsALinkIsRefused) {
    fs::create_directory(dir_ / "real");
    fs::create_directory_symlink(dir_ / "real", dir_ / "via");
    const auto written = write_file_atomically((dir_ / "via" / "out.prom").string(), "x");
    ASSERT_FALSE(written.has_value());
    EXPECT_NE(written.error().message.find("symbolic link"), std::string::npos)
        << written.error().message;
    EXPECT_TRUE(fs::is_empty(dir_ / "real"));
}

// Only a regular file is ever replaced: a FIFO (or a device node) stays what it is, and the
// writer neither blocks on it nor turns it into a file.
TEST_F(AtomicFile, AFifoAtTheTargetIsRefusedWithoutBlocking) {
    const fs::path fifo = dir_ / "out.prom";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    const auto written = write_file_atomically(fifo.string(), "x");
    ASSERT_FALSE(written.has_value());
    EXPECT_NE(written.error().message.find("not a regular file"), std::string::npos)
        << written.error().message;
    EXPECT_TRUE(fs::is_fifo(fifo));
    EXPECT_EQ(listing(), std::vector<std::string>{"out.prom"});
}

TEST_F(AtomicFile, ReplacesAnExistingFileWhole) {
    const std::string path = (dir_ / "out.txt").string();
    std::ofstream(path) << "old content that is longer than the new one\n";
    ASSERT_TRUE(write_file_atomically(path, "new\n").has_value());
    EXPECT_EQ(*read_file(path), "new\n");
    EXPECT_EQ(listing(), std::vector<std::string>{"out.txt"});
}

TEST_F(AtomicFile, WritesEmptyAndBinaryContent) {
    const std::string path = (dir_ / "bin").string();
    const std::string bytes("\0\x01\xff\n", 4);
    ASSERT_TRUE(write_file_atomically(path, bytes).has_value());
    EXPECT_EQ(*read_file(path), bytes);
    ASSERT_TRUE(write_file_atomically(path, "").has_value());
    EXPECT_EQ(*read_file(path), "");
}

// Several files, all or none: one that cannot be written leaves every target as it was and
// no temporary anywhere (export --output A --also nfd=B wrote A when B failed).
TEST_F(AtomicFile, SeveralFilesAreWrittenAllOrNone) {
    const std::string first = (dir_ / "metrics.prom").string();
    const std::string second = (dir_ / "labels").string();
    ASSERT_TRUE(write_file_atomically(first, "old").has_value());
    fs::create_directories(dir_ / "labels" / "inside");  // a directory: refused
    const auto failed =
        write_files_atomically({{first, "new", "--output"}, {second, "labels", "--also nfd"}});
    ASSERT_FALSE(failed.has_value());
    EXPECT_EQ(failed.error().message.rfind("--also nfd: refusing to replace ", 0), 0U)
        << failed.error().message;
    EXPECT_EQ(*read_file(first), "old");
    EXPECT_EQ(listing(), (std::vector<std::string>{"labels", "metrics.prom"}));

    fs::remove_all(dir_ / "labels");
    ASSERT_TRUE(write_files_atomically({{first, "new", ""}, {second, "labels", ""}}).has_value());
    EXPECT_EQ(*read_file(first), "new");
    EXPECT_EQ(*read_file(second), "labels");
    EXPECT_EQ(listing(), (std::vector<std::string>{"labels", "metrics.prom"}));
}

TEST_F(AtomicFile, FailureInAMissingDirectoryLeavesNothingBehind) {
    const std::string path = (dir_ / "missing" / "out.json").string();
    const auto written = write_file_atomically(path, "x");
    ASSERT_FALSE(written.has_value());
    EXPECT_EQ(written.error().code, ErrorCode::io);
    EXPECT_NE(written.error().message.find(path), std::string::npos) << written.error().message;
    EXPECT_NE(written.error().message.find("No such file or directory"), std::string::npos);
    EXPECT_TRUE(listing().empty());
}

TEST_F(AtomicFile, ADirectoryAtTheTargetIsKept) {
    // A directory where the file should go: refused before any temporary is made.
    const fs::path target = dir_ / "taken";
    fs::create_directory(target);
    std::ofstream(target / "inside") << "keep";
    const auto written = write_file_atomically(target.string(), "x");
    ASSERT_FALSE(written.has_value());
    EXPECT_EQ(written.error().code, ErrorCode::io);
    EXPECT_NE(written.error().message.find("not a regular file"), std::string::npos)
        << written.error().message;
    EXPECT_EQ(listing(), std::vector<std::string>{"taken"});
    EXPECT_EQ(*read_file((target / "inside").string()), "keep");
}

// A write that fails part-way (here: past the file-size limit) leaves the old file whole
// and no temporary behind.
TEST_F(AtomicFile, AFailedWriteKeepsTheTargetAndRemovesTheTemporary) {
    const std::string path = (dir_ / "gpu.prom").string();
    ASSERT_TRUE(write_file_atomically(path, "old\n").has_value());
    rlimit saved{};
    ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &saved), 0);
    rlimit small = saved;
    small.rlim_cur = 1024;
    const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);  // EFBIG instead of a signal
    ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
    const auto written = write_file_atomically(path, std::string(64 * 1024, 'x'));
    ::setrlimit(RLIMIT_FSIZE, &saved);
    std::signal(SIGXFSZ, old_handler);
    ASSERT_FALSE(written.has_value());
    EXPECT_NE(written.error().message.find("cannot write"), std::string::npos)
        << written.error().message;
    EXPECT_EQ(listing(), std::vector<std::string>{"gpu.prom"});
    EXPECT_EQ(*read_file(path), "old\n");
}

TEST(AtomicFileName, TheTemporaryIsHiddenBesideTheTarget) {
    EXPECT_EQ(hidden_temp_template("/var/lib/node_exporter/gpu.prom"),
              "/var/lib/node_exporter/.gpu.prom.tmp.XXXXXX");
    EXPECT_EQ(hidden_temp_template("labels"), ".labels.tmp.XXXXXX");
}

TEST_F(AtomicFile, ReadFileErrorsNameThePathAndTheReason) {
    const std::string missing = (dir_ / "nope.txt").string();
    const auto absent = read_file(missing);
    ASSERT_FALSE(absent.has_value());
    EXPECT_EQ(absent.error().code, ErrorCode::io);
    EXPECT_NE(absent.error().message.find(missing), std::string::npos);
    EXPECT_NE(absent.error().message.find("No such file or directory"), std::string::npos)
        << absent.error().message;

    const auto directory = read_file(dir_.string());
    ASSERT_FALSE(directory.has_value());
    EXPECT_NE(directory.error().message.find("it is a directory"), std::string::npos);
}

TEST_F(AtomicFile, ReadFileReturnsEveryByte) {
    const std::string path = (dir_ / "crlf").string();
    std::ofstream(path, std::ios::binary) << "a\r\nb\tc\x1b[4m";
    EXPECT_EQ(*read_file(path), "a\r\nb\tc\x1b[4m");
}

}  // namespace
}  // namespace peergate::util
