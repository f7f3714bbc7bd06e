// SPDX-License-Identifier: Apache-2.0
// Files others name are read only when regular and small: a FIFO or a device is refused
// without blocking, a file over the limit is refused before it is read.
#include "util/bounded_read.hpp"

#include "support/sim_machines.hpp"
#include "util/atomic_file.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

namespace peergate::util {
namespace {

TEST(BoundedRead, ARegularFileWithinTheLimitIsReadWhole) {
    const test::ScratchDir scratch;
    const auto path = scratch.write("t.xml", "<system version=\"1\"/>\n");
    EXPECT_EQ(read_regular_file(path, 64).value_or(""), "<system version=\"1\"/>\n");
    const auto big = read_regular_file(path, 8);
    ASSERT_FALSE(big.has_value());
    EXPECT_EQ(big.error().message, "cannot read " + path + ": larger than 8 bytes");
}

TEST(BoundedRead, FifosDevicesAndMissingFilesAreRefusedWithoutBlocking) {
    const test::ScratchDir scratch;
    const auto fifo = scratch.file("fifo");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    const std::pair<std::string, const char*> cases[] = {
        {fifo, "a FIFO"}, {"/dev/zero", "a character device"}, {scratch.path(), "a directory"}};
    for (const auto& [path, kind] : cases) {
        const auto read = read_regular_file(path, 1 << 20);
        ASSERT_FALSE(read.has_value()) << path;
        EXPECT_EQ(read.error().message,
                  "cannot read " + path + ": not a regular file (it is " + kind + ")");
    }
    const auto missing = read_regular_file(scratch.file("none"), 1);
    ASSERT_FALSE(missing.has_value());
    EXPECT_EQ(missing.error().message,
              "cannot read " + scratch.file("none") + ": No such file or directory");
}

// The verdict cache's reader (docs/security.md): what another user could have written is
// not trusted, and the error says which property failed.
TEST(OwnedRead, OnlyAFileNobodyElseCanWriteInADirectoryNobodyElseCanWriteIsRead) {
    const test::ScratchDir scratch;
    const std::string dir = scratch.file("cache");
    ASSERT_EQ(::mkdir(dir.c_str(), 0755), 0);
    const std::string file = dir + "/probe.json";
    ASSERT_TRUE(write_file_atomically(file, "{}").has_value());
    ASSERT_EQ(::chmod(file.c_str(), 0644), 0);
    ASSERT_TRUE(read_owned_file(file, 1 << 20).has_value());

    ASSERT_EQ(::chmod(file.c_str(), 0666), 0);
    auto read = read_owned_file(file, 1 << 20);
    ASSERT_FALSE(read.has_value());
    EXPECT_EQ(read.error().message,
              "cannot read " + file + ": not trusted: it has mode 0666, so others may write it");

    ASSERT_EQ(::chmod(file.c_str(), 0644), 0);
    ASSERT_EQ(::chmod(dir.c_str(), 0777), 0);
    read = read_owned_file(file, 1 << 20);
    ASSERT_FALSE(read.has_value());
    EXPECT_NE(read.error().message.find("its directory has mode 0777"), std::string::npos)
        << read.error().message;

    ASSERT_EQ(::chmod(dir.c_str(), 0755), 0);
    const std::string link = dir + "/link.json";
    ASSERT_EQ(::symlink(file.c_str(), link.c_str()), 0);
    read = read_owned_file(link, 1 << 20);
    ASSERT_FALSE(read.has_value());
    EXPECT_NE(read.error().message.find("symbolic link"), std::string::npos);
}

TEST(OwnedRead, AFileOfAnotherUserIsNotTrusted) {
    if (::geteuid() != 0) {
        GTEST_SKIP() << "needs root to give a file to another user";
    }
    const test::ScratchDir scratch;
    const std::string file = scratch.file("probe.json");
    ASSERT_TRUE(write_file_atomically(file, "{}").has_value());
    ASSERT_EQ(::chown(file.c_str(), 65534, 65534), 0);
    const auto read = read_owned_file(file, 1 << 20);
    ASSERT_FALSE(read.has_value());
    EXPECT_NE(read.error().message.find("belongs to uid 65534"), std::string::npos)
        << read.error().message;
}

}  // namespace
}  // namespace peergate::util
