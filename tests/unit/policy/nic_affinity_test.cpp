// SPDX-License-Identifier: Apache-2.0
// The class of path between a GPU and a NIC from where sysfs puts them
// (policy/placement/nic_affinity.cpp), in nvidia-smi's legend, and each GPU's nearest NICs.
#include "policy/placement/nic_affinity.hpp"

#include "support/pci_builders.hpp"

#include <gtest/gtest.h>

#include <initializer_list>

namespace peergate::policy::placement {
namespace {

using model::LinkKind;
using test::pci;

// A function at `address` below `ports` (nearest first), on `node`.
PciPlace place(const char* address,
               std::initializer_list<const char*> ports,
               std::optional<int> node = 0) {
    PciPlace out{.path = {.device = pci(address), .ports = {}}, .numa_node = node};
    for (const char* port : ports) {
        out.path.ports.push_back(model::PciPort{.address = pci(port)});
    }
    return out;
}

LinkKind kind(const PciPlace& a, const PciPlace& b) {
    return pci_path_label(a, b).kind;
}

// GPU 05:00.0 on switch 03:00.0 (downstream port 04:08.0) under root port 00:01.0.
const PciPlace kGpu = place("0000:05:00.0", {"0000:04:08.0", "0000:03:00.0", "0000:00:01.0"});

TEST(PciPathLabel, OneSwitchBetweenThemIsPix) {
    const auto nic = place("0000:07:00.0", {"0000:04:18.0", "0000:03:00.0", "0000:00:01.0"});
    EXPECT_EQ(kind(kGpu, nic), LinkKind::pix);
    EXPECT_EQ(kind(nic, kGpu), LinkKind::pix);
}

TEST(PciPathLabel, SwitchesBelowOneRootPortArePxb) {
    // The NIC's switch 0a:00.0 hangs from downstream port 04:18.0 of the GPU's switch.
    const auto nic =
        place("0000:0c:00.0",
              {"0000:0b:00.0", "0000:0a:00.0", "0000:04:18.0", "0000:03:00.0", "0000:00:01.0"});
    EXPECT_EQ(kind(kGpu, nic), LinkKind::pxb);
    EXPECT_EQ(kind(nic, kGpu), LinkKind::pxb);
}

TEST(PciPathLabel, RootPortsOfOneRootBusArePhb) {
    EXPECT_EQ(kind(kGpu, place("0000:21:00.0", {"0000:00:03.0"})), LinkKind::phb);
}

TEST(PciPathLabel, OtherHostBridgesAreNodeOrSysByNumaNode) {
    EXPECT_EQ(kind(kGpu, place("0000:41:00.0", {"0000:40:01.0"}, 0)), LinkKind::node);
    EXPECT_EQ(kind(kGpu, place("0000:c1:00.0", {"0000:c0:01.0"}, 1)), LinkKind::sys);
    // On the root bus itself, with no port above: its own bus is the root bus.
    EXPECT_EQ(kind(kGpu, place("0000:c1:00.0", {}, 1)), LinkKind::sys);
}

TEST(PciPathLabel, NoNodeNamedForEitherIsOneNodeAndForOneOnlyIsUnknown) {
    auto gpu = kGpu;
    gpu.numa_node.reset();
    EXPECT_EQ(kind(gpu, place("0000:c1:00.0", {"0000:c0:01.0"}, std::nullopt)), LinkKind::node);
    EXPECT_EQ(kind(gpu, place("0000:c1:00.0", {"0000:c0:01.0"}, 1)), LinkKind::unknown);
}

TEST(NicAffinity, EachNicHasAClassPerGpuAndAnUnseenGpuIsUnknown) {
    const auto near = place("0000:07:00.0", {"0000:04:18.0", "0000:03:00.0", "0000:00:01.0"});
    const auto far = place("0000:c1:00.0", {"0000:c0:01.0"}, 1);
    const auto affinity = nic_affinity({kGpu, std::nullopt},
                                       {model::Nic{.path = near.path, .numa_node = 0},
                                        model::Nic{.path = far.path, .numa_node = 1}});
    ASSERT_EQ(affinity.labels.size(), 2U);
    EXPECT_EQ(affinity.labels[0][0].kind, LinkKind::pix);
    EXPECT_EQ(affinity.labels[0][1].kind, LinkKind::unknown);
    EXPECT_EQ(affinity.labels[1][0].kind, LinkKind::sys);
    EXPECT_EQ(nearest_nics(affinity, 0), std::vector<std::size_t>{0});
    EXPECT_TRUE(nearest_nics(affinity, 1).empty());
}

TEST(NicAffinity, NicsTheSameDistanceAwayAreAllNearest) {
    const auto a = place("0000:41:00.0", {"0000:40:01.0"});
    const auto b = place("0000:61:00.0", {"0000:60:01.0"});
    const auto affinity = nic_affinity(
        {kGpu},
        {model::Nic{.path = a.path, .numa_node = 0}, model::Nic{.path = b.path, .numa_node = 0}});
    EXPECT_EQ(nearest_nics(affinity, 0), (std::vector<std::size_t>{0, 1}));
}

TEST(NicAffinity, AVirtualFunctionIsNeverTheNearest) {
    const auto pf = place("0000:07:00.0", {"0000:04:18.0", "0000:03:00.0", "0000:00:01.0"});
    const auto vf = place("0000:07:01.0", {"0000:04:18.0", "0000:03:00.0", "0000:00:01.0"});
    const auto affinity = nic_affinity(
        {kGpu},
        {model::Nic{.path = pf.path, .numa_node = 0},
         model::Nic{.path = vf.path, .numa_node = 0, .physical_function = pf.path.device}});
    EXPECT_EQ(affinity.labels[1][0].kind, LinkKind::pix);
    EXPECT_EQ(nearest_nics(affinity, 0), std::vector<std::size_t>{0});
}

}  // namespace
}  // namespace peergate::policy::placement
