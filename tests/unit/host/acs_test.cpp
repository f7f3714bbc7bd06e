// SPDX-License-Identifier: Apache-2.0
// The ACS control word from a port's configuration space (sources/host/acs.cpp), the PCIe
// ports above a device in sysfs (sources/host/pci_tree.cpp) and the network functions with
// theirs (sources/host/network_devices.cpp).
#include "sources/host/acs.hpp"

#include "sources/host/network_devices.hpp"
#include "sources/host/pci_tree.hpp"
#include "util/atomic_file.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <string>

namespace peergate::sources::host {
namespace {

namespace fs = std::filesystem;

// The control word lspci -vvv decoded as "ACSCtl: SrcValid+ TransBlk- ReqRedir+ CmpltRedir+
// UpstreamFwd+ EgressCtrl- DirectTrans-" on an AMD GPP bridge (ROCm/rccl issue #547).
constexpr std::uint16_t kRccl547Control = 0x001d;

void put32(std::string& config, std::size_t at, std::uint32_t value) {
    for (std::size_t i = 0; i < 4; ++i) {
        config[at + i] = static_cast<char>((value >> (8 * i)) & 0xFFU);
    }
}

// 4 KiB of configuration space with extended capabilities at the given offsets: each
// {offset, id}; ACS gets `control`. Linked in the order given.
std::string config_with(std::vector<std::pair<std::size_t, std::uint16_t>> caps,
                        std::uint16_t control) {
    std::string config(4096, '\0');
    for (std::size_t k = 0; k < caps.size(); ++k) {
        const auto [at, id] = caps[k];
        const auto next = static_cast<std::uint32_t>(k + 1 < caps.size() ? caps[k + 1].first : 0);
        put32(config, at, id | (1U << 16U) | (next << 20U));
        if (id == 0x000D) {
            put32(config, at + 4, 0x007FU | (static_cast<std::uint32_t>(control) << 16U));
        }
    }
    return config;
}

TEST(AcsControl, DescribesTheBitsAsLspciDoes) {
    EXPECT_EQ(model::AcsControl{kRccl547Control}.describe(),
              "SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-");
    EXPECT_TRUE(model::AcsControl{kRccl547Control}.redirects());
    EXPECT_FALSE(model::AcsControl{0x0011}.redirects());  // SrcValid and UpstreamFwd only
    EXPECT_TRUE(model::AcsControl{0x0008}.redirects());   // completion redirect alone
}

TEST(AcsParse, FindsTheControlWordAfterOtherCapabilities) {
    // AER at 0x100, then ACS at 0x148, as lspci lists them on many switch ports.
    const auto config = config_with({{0x100, 0x0001}, {0x148, 0x000D}}, kRccl547Control);
    const auto acs = parse_acs_control(config);
    ASSERT_TRUE(acs.has_value());
    ASSERT_TRUE(acs->has_value());
    EXPECT_EQ((*acs)->bits, kRccl547Control);
}

TEST(AcsParse, APortWithoutTheCapabilityHasNone) {
    const auto none = parse_acs_control(std::string(4096, '\0'));
    ASSERT_TRUE(none.has_value());
    EXPECT_FALSE(none->has_value());
    const auto others = parse_acs_control(config_with({{0x100, 0x0001}, {0x140, 0x0002}}, 0));
    ASSERT_TRUE(others.has_value());
    EXPECT_FALSE(others->has_value());
}

TEST(AcsParse, WhatANonRootReaderSeesIsAnErrorSayingSo) {
    const auto acs = parse_acs_control(std::string(64, '\0'));
    ASSERT_FALSE(acs.has_value());
    EXPECT_NE(acs.error().message.find("needs root"), std::string::npos);
}

TEST(AcsParse, CorruptListsEndTheWalk) {
    auto loop = config_with({{0x100, 0x0001}}, 0);
    put32(loop, 0x100, 0x0001U | (0x100U << 20U));  // points at itself
    EXPECT_FALSE(parse_acs_control(loop)->has_value());
    auto into_the_header = config_with({{0x100, 0x0001}}, 0);
    put32(into_the_header, 0x100, 0x0001U | (0x40U << 20U));  // below the extended space
    EXPECT_FALSE(parse_acs_control(into_the_header)->has_value());
    const auto cut = config_with({{0x100, 0x000D}}, kRccl547Control).substr(0, 0x106);
    EXPECT_FALSE(parse_acs_control(cut)->has_value());  // control word past the end
}

// The next offset's two low bits are reserved: software masks them off (PCIe base
// specification; Linux's PCI_EXT_CAP_NEXT does), so a device that sets them still has its
// ACS capability found.
TEST(AcsParse, TheNextOffsetsReservedBitsAreMasked) {
    auto config = config_with({{0x100, 0x0001}, {0x148, 0x000D}}, kRccl547Control);
    put32(config, 0x100, 0x0001U | (1U << 16U) | (0x14BU << 20U));
    ASSERT_TRUE(parse_acs_control(config)->has_value());
    EXPECT_EQ(parse_acs_control(config)->value().bits, kRccl547Control);
}

// A linked list need not run upwards: a capability may point back below itself.
TEST(AcsParse, AListThatPointsBackIsFollowed) {
    const auto config =
        config_with({{0x100, 0x0001}, {0x300, 0x0002}, {0x140, 0x000D}}, kRccl547Control);
    ASSERT_TRUE(parse_acs_control(config)->has_value());
    EXPECT_EQ(parse_acs_control(config)->value().bits, kRccl547Control);
}

class PciTree : public ::testing::Test {
protected:
    void SetUp() override {
        root_ = fs::temp_directory_path() / ("peergate-pci-tree-" + std::to_string(::getpid()));
        fs::remove_all(root_);
    }

    void TearDown() override { fs::remove_all(root_); }

    // A device under `path` (below sys/devices), linked from sys/bus/pci/devices.
    void device(const std::string& path, const std::string* config = nullptr) {
        const fs::path dir = root_ / "sys/devices" / path;
        fs::create_directories(dir);
        if (config != nullptr) {
            ASSERT_TRUE(util::write_file_atomically((dir / "config").string(), *config));
        }
        fs::create_directories(root_ / "sys/bus/pci/devices");
        fs::create_directory_symlink("../../../devices/" + path,
                                     root_ / "sys/bus/pci/devices" / dir.filename());
    }

    fs::path root_;
};

TEST_F(PciTree, ListsThePortsAboveAGpuNearestFirstWithTheirAcs) {
    const auto redirecting = config_with({{0x100, 0x000D}}, kRccl547Control);
    const auto plain = std::string(4096, '\0');
    device("pci0000:00/0000:00:01.0", &redirecting);
    device("pci0000:00/0000:00:01.0/0000:03:00.0", &plain);
    device("pci0000:00/0000:00:01.0/0000:03:00.0/0000:04:08.0");  // config not readable
    device("pci0000:00/0000:00:01.0/0000:03:00.0/0000:04:08.0/0000:05:00.0");
    const auto ports =
        ports_above(HostRoot(root_.string()), model::PciAddress::parse("0000:05:00.0").value());
    ASSERT_TRUE(ports.has_value()) << ports.error().message;
    ASSERT_EQ(ports->size(), 3U);
    EXPECT_EQ((*ports)[0].address.to_sysfs(), "0000:04:08.0");
    EXPECT_FALSE((*ports)[0].acs.has_value());
    EXPECT_NE((*ports)[0].unread.find("config"), std::string::npos) << (*ports)[0].unread;
    EXPECT_EQ((*ports)[1].address.to_sysfs(), "0000:03:00.0");
    EXPECT_FALSE((*ports)[1].acs.has_value());
    EXPECT_TRUE((*ports)[1].unread.empty());
    EXPECT_EQ((*ports)[2].acs, model::AcsControl{kRccl547Control});
}

TEST_F(PciTree, ADeviceOnTheRootBusHasNoPortsAndAMissingOneIsAnError) {
    device("pci0000:17/0000:17:00.0");
    const HostRoot root(root_.string());
    const auto ports = ports_above(root, model::PciAddress::parse("0000:17:00.0").value());
    ASSERT_TRUE(ports.has_value());
    EXPECT_TRUE(ports->empty());
    const auto missing = ports_above(root, model::PciAddress::parse("0000:99:00.0").value());
    ASSERT_FALSE(missing.has_value());
    EXPECT_NE(missing.error().message.find("0000:99:00.0"), std::string::npos);
}

// Each network function is listed; a card's ports (functions .0 and .1 of a dual-port
// ConnectX) are one NIC at its first function with both ports' names, as NCCL merges them.
TEST_F(PciTree, EachNetworkFunctionIsListedAndACardIsOneNic) {
    const std::string nic = "pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:18.0/0000:03:00.0";
    const std::string second = nic.substr(0, nic.size() - 1) + "1";
    device("pci0000:00/0000:00:01.0");
    device("pci0000:00/0000:00:01.0/0000:01:00.0");
    device("pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:18.0");
    device(nic);
    device(second);
    device("pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:08.0/0000:04:00.0");  // a GPU
    const auto put = [&](const std::string& path, const char* file, const char* text) {
        ASSERT_TRUE(
            util::write_file_atomically((root_ / "sys/devices" / path / file).string(), text));
    };
    put(nic, "class", "0x020700\n");  // InfiniBand
    put(second, "class", "0x020700\n");
    put("pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:08.0/0000:04:00.0", "class", "0x030200\n");
    for (const auto& name :
         {nic + "/infiniband/mlx5_0", second + "/infiniband/mlx5_1", second + "/net/ibp3s0f1"}) {
        fs::create_directories(root_ / "sys/devices" / name);
    }
    const auto functions = network_devices(HostRoot(root_.string()));
    ASSERT_EQ(functions.size(), 2U);
    EXPECT_EQ(functions[1].device.to_sysfs(), "0000:03:00.1");
    const auto nics = read_nics(HostRoot(root_.string()));
    ASSERT_EQ(nics.size(), 1U);
    EXPECT_EQ(nics[0].path.device.to_sysfs(), "0000:03:00.0");
    ASSERT_EQ(nics[0].path.ports.size(), 3U);
    EXPECT_EQ(nics[0].path.ports[1].address.to_sysfs(), "0000:01:00.0");
    EXPECT_EQ(nics[0].rdma_devices, (std::vector<std::string>{"mlx5_0", "mlx5_1"}));
    EXPECT_EQ(nics[0].interfaces, (std::vector<std::string>{"ibp3s0f1"}));
}

}  // namespace
}  // namespace peergate::sources::host
