// SPDX-License-Identifier: Apache-2.0
// A PCI function's sysfs attributes and a NUMA node's cpumap, read under a host root laid out
// as the kernel lays out /sys (values as an H100 SXM host's sysfs gives them).
#include "sources/host/pci_attributes.hpp"

#include "sources/host/numa_cpumap.hpp"
#include "util/atomic_file.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <string>

namespace peergate::sources::host {
namespace {

namespace fs = std::filesystem;

class HostRootDir : public testing::Test {
protected:
    void SetUp() override {
        root_ = fs::temp_directory_path() / ("peergate-pci-attr-" + std::to_string(::getpid()));
        fs::remove_all(root_);
    }

    void TearDown() override { fs::remove_all(root_); }

    void put(const std::string& path, const std::string& text) {
        fs::create_directories((root_ / path).parent_path());
        ASSERT_TRUE(util::write_file_atomically((root_ / path).string(), text));
    }

    fs::path root_;
};

TEST_F(HostRootDir, ReadsEveryAttributeTrimmed) {
    const std::string dir = "sys/bus/pci/devices/0000:1b:00.0/";
    put(dir + "class", "0x030200\n");
    put(dir + "vendor", "0x10de\n");
    put(dir + "device", "0x2330\n");
    put(dir + "subsystem_vendor", "0x10de\n");
    put(dir + "subsystem_device", "0x16c1\n");
    put(dir + "max_link_speed", "32.0 GT/s PCIe\n");
    put(dir + "max_link_width", "16\n");
    put(dir + "current_link_speed", "2.5 GT/s PCIe\n");  // idle
    put(dir + "current_link_width", "8\n");
    put(dir + "numa_node", "-1\n");
    const auto read = read_pci_attributes(HostRoot(root_.string()),
                                          *model::PciAddress::parse("00000000:1B:00.0"));
    EXPECT_EQ(read,
              (model::PciAttributes{.pci_class = "0x030200",
                                    .vendor = "0x10de",
                                    .device = "0x2330",
                                    .subsystem_vendor = "0x10de",
                                    .subsystem_device = "0x16c1",
                                    .max_link_speed = "32.0 GT/s PCIe",
                                    .max_link_width = 16,
                                    .current_link_speed = "2.5 GT/s PCIe",
                                    .current_link_width = 8,
                                    .numa_node = -1}));
}

TEST_F(HostRootDir, WhatIsMissingStaysEmpty) {
    put("sys/bus/pci/devices/0000:00:01.0/class", "0x060400\n");
    put("sys/bus/pci/devices/0000:00:01.0/max_link_width", "x16\n");  // not a number
    const auto read =
        read_pci_attributes(HostRoot(root_.string()), *model::PciAddress::parse("0000:00:01.0"));
    EXPECT_EQ(read, (model::PciAttributes{.pci_class = "0x060400"}));
}

TEST_F(HostRootDir, CpumapIsTakenVerbatimWhenItIsAMask) {
    put("sys/devices/system/node/node1/cpumap", "00000000,00000000,ffffff00,0000ffff\n");
    put("sys/devices/system/node/node2/cpumap", "0-15\n");
    const HostRoot root(root_.string());
    EXPECT_EQ(read_numa_cpumap(root, 1), "00000000,00000000,ffffff00,0000ffff");
    EXPECT_EQ(read_numa_cpumap(root, 2), std::nullopt);   // a list, not a mask
    EXPECT_EQ(read_numa_cpumap(root, 0), std::nullopt);   // no such node
    EXPECT_EQ(read_numa_cpumap(root, -1), std::nullopt);  // no node at all
}

}  // namespace
}  // namespace peergate::sources::host
