// SPDX-License-Identifier: Apache-2.0
// Which GPUs the gate resolves from --gpus, an inherited mask or the identity join, at the
// edges where the three index spaces of docs/gate-rules.md §4 part (each case kills a mutant that
// the verdict tests let live).
#include "gate_test_support.hpp"
#include "policy/gate/gate.hpp"
#include "policy/gate/selection.hpp"

#include <gtest/gtest.h>

namespace peergate::policy::gate {
namespace {

using namespace peergate::test;  // NOLINT(google-build-using-namespace)

GateInput bridged_with_mask(const char* mask, const char* order = "PCI_BUS_ID") {
    return input(
        bridged_a100_4x(), {}, env({{"CUDA_VISIBLE_DEVICES", mask}, {"CUDA_DEVICE_ORDER", order}}));
}

// CUDA shows the GPUs before the first negative index, so "0,1,-1,2" is the bridged pair.
TEST(GateSelection, AMaskEndsAtItsFirstNegativeIndex) {
    const auto cut = decide(bridged_with_mask("0,1,-1,2"));
    EXPECT_EQ(cut.selection, (std::vector<int>{0, 1}));
    EXPECT_TRUE(cut.p2p) << cut.veto;

    const auto none = decide(bridged_with_mask("-1"));
    EXPECT_TRUE(none.selection.empty());
    EXPECT_EQ(none.rule, "single_gpu");
    EXPECT_TRUE(warns_about(none, "the child sees no GPU"));

    const auto uuid = decide(bridged_with_mask("0,GPU-3f2a"));  // not an index list
    EXPECT_EQ(uuid.selection, (std::vector<int>{0, 1, 2, 3}));
    EXPECT_FALSE(uuid.p2p);
}

// Only the exact value pins the order; another spelling may leave FASTEST_FIRST in force.
TEST(GateSelection, OnlyTheExactOrderValuePinsTheMask) {
    for (const char* order : {" PCI_BUS_ID", "pci_bus_id", "PCI_BUS_ID\n"}) {
        SCOPED_TRACE(order);
        const auto d = decide(bridged_with_mask("0,1", order));
        EXPECT_EQ(d.selection, (std::vector<int>{0, 1, 2, 3}));
        EXPECT_EQ(d.rule, "every_pair_nvlink");
        EXPECT_FALSE(d.p2p);
    }
}

// --gpus all gates every GPU: an inherited mask does not narrow it (exec pins the child to all).
TEST(GateSelection, AllIgnoresAnInheritedMask) {
    auto in = bridged_with_mask("0,1");
    in.selection = Selection::all();
    const auto d = decide(in);
    EXPECT_EQ(d.selection_source, "all");
    EXPECT_EQ(d.selection, (std::vector<int>{0, 1, 2, 3}));
    EXPECT_FALSE(d.p2p);
}

// Without a host list nothing can be called absent: the veto gives the real reason.
TEST(GateSelection, AnUnknownHostCallsNoGpuAbsent) {
    auto in = input(uniform_nvlink(2), gpus({0, 1}), env({{"PEERGATE_FORCE_P2P", "1"}}));
    in.topology.reset();
    in.topology_reason = "nvidia-smi: not found";
    const auto d = decide(in);
    EXPECT_EQ(d.rule, "datacenter_name");
    EXPECT_NE(d.veto.find("name of GPU 0 is unknown"), std::string::npos) << d.veto;
}

// Only an explicit list can name a GPU the host lacks as a usage error (issue 52); a pinned
// inherited mask is the environment's, and an unknown host calls nothing absent.
TEST(GateSelection, RequestedAbsentIsTheListsIdsTheHostLacks) {
    EXPECT_EQ(requested_absent(input(bridged_a100_4x(), gpus({7, 1, 9}))),
              (std::vector<int>{7, 9}));
    EXPECT_TRUE(requested_absent(input(bridged_a100_4x(), gpus({0, 3}))).empty());
    EXPECT_TRUE(requested_absent(bridged_with_mask("0,7")).empty());
    EXPECT_TRUE(requested_absent(input(bridged_a100_4x(), Selection::all())).empty());
    auto unknown = input(bridged_a100_4x(), gpus({0, 9}));
    unknown.topology.reset();
    EXPECT_TRUE(requested_absent(unknown).empty());
    unknown.gpus = {model::Gpu{.index = 0}, model::Gpu{.index = 1}};  // nvidia-smi's list
    EXPECT_EQ(requested_absent(unknown), (std::vector<int>{9}));
    EXPECT_EQ(absent_text({9}, bridged_a100_4x().gpus),
              "GPU 9 is not on this host (its GPUs: 0, 1, 2, 3)");
    EXPECT_EQ(absent_text({7, 9}, bridged_a100_4x().gpus),
              "GPUs 7, 9 are not on this host (its GPUs: 0, 1, 2, 3)");
}

// The identity join needs every host GPU's PCI address: with one missing, a child GPU could
// not be told apart from a GPU the matrix lacks, so --gpus decides as without the driver.
TEST(GateSelection, TheIdentityJoinNeedsEveryHostGpusAddress) {
    auto t = bridged_a100_4x();
    t.gpus[0].pci = model::PciAddress::parse("00000000:07:00.0").value();
    t.gpus[1].pci = model::PciAddress::parse("00000000:0B:00.0").value();
    t.gpus[2].pci = model::PciAddress::parse("00000000:48:00.0").value();
    auto in = input(std::move(t), gpus({2, 3}));
    in.child_visible =
        std::vector<model::PciAddress>{model::PciAddress::parse("0000:48:00.0").value(),
                                       model::PciAddress::parse("0000:4c:00.0").value()};
    const auto d = decide(in);
    EXPECT_EQ(d.selection_source, "gpus");
    EXPECT_TRUE(d.p2p) << d.veto;
}

// An unpinned order is doubt only while the gate must infer what the child sees; the
// identity join asked the driver under the child's own environment, so it needs no pinning.
TEST(GateSelection, TheIdentityJoinNeedsNoPinnedOrder) {
    auto t = bridged_a100_4x();
    const char* ids[] = {
        "00000000:07:00.0", "00000000:0B:00.0", "00000000:48:00.0", "00000000:4C:00.0"};
    for (std::size_t i = 0; i < 4; ++i) {
        t.gpus[i].pci = model::PciAddress::parse(ids[i]).value();
    }
    auto in = input(std::move(t), gpus({2, 3}));
    in.pin_selection = false;
    in.child_visible = std::vector<model::PciAddress>{model::PciAddress::parse(ids[2]).value(),
                                                      model::PciAddress::parse(ids[3]).value()};
    const auto d = decide(in);
    EXPECT_EQ(d.selection_source, "cuda_identity");
    EXPECT_TRUE(d.p2p) << d.veto;

    in.child_visible.reset();  // the same launch, inferred: the order must be pinned
    EXPECT_EQ(decide(in).rule, "order_not_pinned");
}

}  // namespace
}  // namespace peergate::policy::gate
