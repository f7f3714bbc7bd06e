// SPDX-License-Identifier: Apache-2.0
// Files others name are read only when regular and small: a FIFO or a device is refused
// without blocking, a file over the limit is refused before it is read.
#include "util/bounded_read.hpp"

#include "support/sim_machines.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>

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

}  // namespace
}  // namespace peergate::util
