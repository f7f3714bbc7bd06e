// SPDX-License-Identifier: Apache-2.0
// Which topology file an NCCL job will read, found as NCCL finds it: NCCL_TOPO_FILE, then the
// configuration files (the user's, then /etc/nccl.conf, the first to set it winning), then
// NCCL's default path; and NCCL's reading of NAME=VALUE configuration lines.
#include "sources/nccl/nccl_topo_file.hpp"

#include "support/fixture_files.hpp"
#include "support/sim_machines.hpp"
#include "util/atomic_file.hpp"

#include <gtest/gtest.h>

#include <filesystem>

namespace peergate::sources::nccl {
namespace {

namespace fs = std::filesystem;

void put(const std::string& path, const std::string& text) {
    fs::create_directories(fs::path(path).parent_path());
    ASSERT_TRUE(util::write_file_atomically(path, text).has_value());
}

TEST(NcclConf, ReadsLinesAsNcclDoes) {
    EXPECT_EQ(
        nccl_conf_value(test::read_fixture("nccl_topo", "azure-ncv4-nccl.conf"), "NCCL_TOPO_FILE"),
        "/opt/microsoft/ncv4/topo.xml");
    const std::string text =
        "#NCCL_TOPO_FILE=/commented\r\nNCCL_TOPO_FILE =/spaced\nNCCL_TOPO_FILE=/first\r\n"
        "NCCL_TOPO_FILE=/second\n";
    EXPECT_EQ(nccl_conf_value(text, "NCCL_TOPO_FILE"), "/first");  // CR dropped, first wins
    EXPECT_EQ(nccl_conf_value("NCCL_TOPO_FILE", "NCCL_TOPO_FILE"), std::nullopt);
    EXPECT_EQ(nccl_conf_value("NCCL_TOPO_FILE=", "NCCL_TOPO_FILE"), "");
}

TEST(NcclTopoFileInput, EtcNcclConfNamesTheImagesFileUnderTheHostRoot) {
    const test::ScratchDir scratch;
    const std::string root = scratch.file("root");
    put(root + "/etc/nccl.conf", test::read_fixture("nccl_topo", "azure-ncv4-nccl.conf"));
    put(root + "/opt/microsoft/ncv4/topo.xml",
        test::read_fixture("nccl_topo", "azure-ncv4-topo.xml"));
    const auto file = read_nccl_topo_file(util::EnvMap{}, root);
    ASSERT_TRUE(file.has_value());
    EXPECT_EQ(file->path, "/opt/microsoft/ncv4/topo.xml");
    EXPECT_EQ(file->named_by, "/etc/nccl.conf");
    EXPECT_EQ(file->unreadable, "");
    EXPECT_EQ(file->gpus.size(), 4U);
}

TEST(NcclTopoFileInput, TheEnvironmentAndTheUsersFileComeFirst) {
    const test::ScratchDir scratch;
    const std::string root = scratch.file("root");
    put(root + "/etc/nccl.conf", "NCCL_TOPO_FILE=/nowhere.xml\n");
    put(scratch.file("home/.nccl.conf"), "NCCL_TOPO_FILE=" + scratch.file("mine.xml") + "\n");
    put(scratch.file("mine.xml"), "<system version=\"1\"><cpu numaid=\"0\">\n");
    util::EnvMap env;
    env.set("HOME", scratch.file("home"));
    auto file = read_nccl_topo_file(env, root);
    ASSERT_TRUE(file.has_value());
    EXPECT_EQ(file->named_by, scratch.file("home/.nccl.conf"));
    EXPECT_TRUE(file->exists);
    EXPECT_EQ(file->malformed, "NCCL topology file: <cpu> is not closed");
    env.set("NCCL_TOPO_FILE", scratch.file("absent.xml"));
    file = read_nccl_topo_file(env, root);
    ASSERT_TRUE(file.has_value());
    EXPECT_EQ(file->named_by, "NCCL_TOPO_FILE");
    EXPECT_FALSE(file->exists);  // NCCL goes on without a file it cannot open
    EXPECT_EQ(file->unreadable, "");
    env.set("NCCL_TOPO_FILE", "/dev/zero");  // never read: not a regular file
    file = read_nccl_topo_file(env, root);
    ASSERT_TRUE(file.has_value());
    EXPECT_EQ(file->unreadable,
              "cannot read /dev/zero: not a regular file (it is a character device)");
    env.set("NCCL_TOPO_FILE", "");
    EXPECT_FALSE(read_nccl_topo_file(env, root).has_value());  // set but empty: no file
}

TEST(NcclTopoFileInput, NcclsDefaultPathWhenNothingNamesAFile) {
    const test::ScratchDir scratch;
    const std::string root = scratch.file("root");
    EXPECT_FALSE(read_nccl_topo_file(util::EnvMap{}, root).has_value());
    put(root + "/var/run/nvidia-topologyd/virtualTopology.xml",
        test::read_fixture("nccl_topo", "aws-p4d-24xl-topo.xml"));
    const auto file = read_nccl_topo_file(util::EnvMap{}, root);
    ASSERT_TRUE(file.has_value());
    EXPECT_EQ(file->path, "/var/run/nvidia-topologyd/virtualTopology.xml");
    EXPECT_EQ(file->named_by, "NCCL's default path");
    EXPECT_TRUE(file->gpus.empty());
}

}  // namespace
}  // namespace peergate::sources::nccl
