// SPDX-License-Identifier: Apache-2.0
// The simulated driver's CUDA_DEVICE_ORDER / CUDA_VISIBLE_DEVICES rules (docs/driver-facts.md),
// and the gate's side of the identity join: the child's CUDA environment and the helper's
// output.
#include "sim/machine/cuda_visible.hpp"

#include "pipeline/identity_join.hpp"
#include "support/sim_machines.hpp"

#include <gtest/gtest.h>

#include <filesystem>

namespace peergate {
namespace {

using Positions = std::vector<std::size_t>;

snapshot::MachineGpu gpu(
    int index, const char* bus, const char* uuid, int cc_major, std::uint64_t gib) {
    snapshot::MachineGpu g;
    g.index = index;
    g.pci = *model::PciAddress::parse(bus);
    g.uuid = uuid;
    g.cc_major = cc_major;
    g.memory_bytes = gib << 30U;
    return g;
}

// PCI order: two slow GPUs, then a fast one, then a middle one (same cc, more memory).
std::vector<snapshot::MachineGpu> mixed() {
    return {gpu(0, "0000:17:00.0", "GPU-aaaa0000", 8, 80),
            gpu(1, "0000:31:00.0", "GPU-aaaa1111", 8, 80),
            gpu(2, "0000:b1:00.0", "GPU-bbbb2222", 9, 80),
            gpu(3, "0000:ca:00.0", "GPU-cccc3333", 8, 94)};
}

TEST(SimCudaOrder, FastestFirstSortsBySpeedWithTiesInPciOrder) {
    const Positions fastest{2, 3, 0, 1};
    EXPECT_EQ(sim::cuda_enumeration_order(mixed(), std::nullopt), fastest);
    EXPECT_EQ(sim::cuda_enumeration_order(mixed(), "FASTEST_FIRST"), fastest);
    EXPECT_EQ(sim::cuda_enumeration_order(mixed(), "bogus"), fastest)
        << "unknown values are the default";
    EXPECT_EQ(sim::cuda_enumeration_order(mixed(), "PCI_BUS_ID"), (Positions{0, 1, 2, 3}));
}

TEST(SimCudaOrder, IdenticalGpusEnumerateInPciOrder) {
    std::vector<snapshot::MachineGpu> same{gpu(0, "0000:b1:00.0", "GPU-1", 9, 80),
                                           gpu(1, "0000:17:00.0", "GPU-2", 9, 80)};
    EXPECT_EQ(sim::cuda_enumeration_order(same, std::nullopt), (Positions{1, 0}));
}

struct MaskCase {
    const char* name;
    std::optional<std::string> visible;
    std::optional<std::string> order;
    Positions expected;
};

TEST(SimCudaVisible, MaskRulesTable) {
    const std::vector<MaskCase> cases = {
        {"unset: every GPU, fastest first", std::nullopt, std::nullopt, {2, 3, 0, 1}},
        {"ordinals name the fastest-first order", "0,1", std::nullopt, {2, 3}},
        {"ordinals under PCI_BUS_ID are bus order", "0,1", "PCI_BUS_ID", {0, 1}},
        {"listed order is the ordinal order", "1,0", "PCI_BUS_ID", {1, 0}},
        {"spaces around entries are ignored", " 3 , 0 ", "PCI_BUS_ID", {3, 0}},
        {"empty hides every GPU", "", std::nullopt, {}},
        {"blank hides every GPU", "  ", std::nullopt, {}},
        {"a bad entry stops the list", "0,foo,1", std::nullopt, {2}},
        {"a bad first entry leaves nothing", "foo,0", std::nullopt, {}},
        {"an ordinal out of range stops the list", "0,7,1", std::nullopt, {2}},
        {"a duplicate stops the list", "1,1,0", "PCI_BUS_ID", {1}},
        {"a negative ordinal is bad", "-1", std::nullopt, {}},
        {"an empty entry is bad", "0,,1", "PCI_BUS_ID", {0}},
        {"uuid prefix", "GPU-cccc,GPU-aaaa1", std::nullopt, {3, 1}},
        {"uuid prefix is case-insensitive", "gpu-BBBB", std::nullopt, {2}},
        {"an ambiguous uuid prefix stops the list", "GPU-bbbb,GPU-aaaa", std::nullopt, {2}},
        {"a uuid that matches nothing stops the list", "GPU-dddd,0", std::nullopt, {}},
        {"MIG ids are not devices here", "MIG-1234,0", std::nullopt, {}},
        {"uuid then ordinal then duplicate", "GPU-aaaa0,1,0", "PCI_BUS_ID", {0, 1}},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.name);
        EXPECT_EQ(sim::cuda_visible_positions(mixed(), c.visible, c.order), c.expected);
    }
}

TEST(SimCudaVisible, RestrictedMachinePermutesItsTables) {
    snapshot::MachineFile machine;
    machine.gpus = mixed();
    const auto L = [](const char* t) { return *model::LinkLabel::parse(t); };
    machine.matrix = {{L("X"), L("NODE"), L("SYS"), L("SYS")},
                      {L("NODE"), L("X"), L("SYS"), L("SYS")},
                      {L("SYS"), L("SYS"), L("X"), L("NV12")},
                      {L("SYS"), L("SYS"), L("NV12"), L("X")}};
    machine.cuda_can_access_peer = {{0, 1, 0, 0}, {1, 0, 0, 0}, {0, 0, 0, 1}, {0, 0, 1, 0}};
    const auto seen = sim::restrict_to_positions(machine, {3, 2});
    ASSERT_EQ(seen.gpus.size(), 2U);
    EXPECT_EQ(seen.gpus[0].index, 3) << "nvidia-smi indices stay";
    EXPECT_EQ(seen.gpus[1].index, 2);
    EXPECT_EQ(seen.matrix[0][1], L("NV12"));
    EXPECT_EQ(seen.cuda_can_access_peer, (std::vector<std::vector<int>>{{0, 1}, {1, 0}}));
    EXPECT_TRUE(seen.bandwidth.p2p_gbps.empty()) << "a derived table stays derived";
}

TEST(IdentityJoin, ChildEnvironmentPinsAnExplicitSelection) {
    util::EnvMap parent;
    parent.set("CUDA_VISIBLE_DEVICES", "3");
    parent.set("PEERGATE_SIM_MACHINE", "/m.json");
    const auto list = *policy::gate::Selection::parse("2,0");
    const auto pinned = pipeline::child_cuda_environment(parent, list, true, {});
    EXPECT_EQ(pinned.get("CUDA_VISIBLE_DEVICES"), "2,0");
    EXPECT_EQ(pinned.get("CUDA_DEVICE_ORDER"), "PCI_BUS_ID");
    EXPECT_EQ(pinned.get("PEERGATE_SIM_MACHINE"), "/m.json");

    const auto unpinned = pipeline::child_cuda_environment(parent, list, false, {});
    EXPECT_EQ(unpinned, parent) << "without pinning the child keeps what it inherits";
    EXPECT_EQ(pipeline::child_cuda_environment(parent, policy::gate::Selection{}, true, {}),
              parent);

    std::vector<model::Gpu> host(3);
    for (int i = 0; i < 3; ++i) {
        host[static_cast<std::size_t>(i)].index = i;
    }
    const auto all = pipeline::child_cuda_environment(
        parent, *policy::gate::Selection::parse("all"), true, host);
    EXPECT_EQ(all.get("CUDA_VISIBLE_DEVICES"), "0,1,2");
}

TEST(IdentityJoin, ParsesTheHelperOutput) {
    const auto parsed = pipeline::parse_cuda_visible("00000000:B1:00.0\n00000000:CA:00.0\n");
    ASSERT_TRUE(parsed) << parsed.error().message;
    ASSERT_EQ(parsed->size(), 2U);
    EXPECT_EQ((*parsed)[0], *model::PciAddress::parse("0000:b1:00.0"));
    const auto none = pipeline::parse_cuda_visible("");
    ASSERT_TRUE(none);
    EXPECT_TRUE(none->empty()) << "no line: the child sees no GPU";
    EXPECT_FALSE(pipeline::parse_cuda_visible("00000000:B1:00.0\nGPU 1\n"))
        << "a stray line is an error";
}

// A stand-in helper script, executable, in `scratch`.
std::string helper_script(const test::ScratchDir& scratch,
                          const std::string& name,
                          const std::string& body) {
    const std::string path = scratch.write(name, "#!/bin/sh\n" + body);
    std::filesystem::permissions(path, std::filesystem::perms::owner_all);
    return path;
}

// The helper runs in the child's environment less PEERGATE_SIMULATE (it would build the
// simulated host again), and what a failing helper printed is not read as the answer.
TEST(IdentityJoin, TheHelpersEnvironmentAndItsFailure) {
    util::EnvMap child;
    child.set("PEERGATE_SIMULATE", "hgx-b200-8x");
    child.set("CUDA_VISIBLE_DEVICES", "1");
    const test::ScratchDir scratch;
    const std::string answers = helper_script(
        scratch,
        "answers",
        "[ -z \"$PEERGATE_SIMULATE\" ] || exit 9\n[ \"$CUDA_VISIBLE_DEVICES\" = 1 ] || exit 8\n"
        "echo 0000:b1:00.0\n");
    const auto seen = pipeline::enumerate_child_visible(answers, util::Seams{}, child);
    ASSERT_TRUE(seen) << seen.error().message;
    EXPECT_EQ(*seen, std::vector<model::PciAddress>{*model::PciAddress::parse("0000:b1:00.0")});

    const std::string fails =
        helper_script(scratch, "fails", "echo 0000:b1:00.0\necho 'cuInit failed' >&2\nexit 3\n");
    const auto failed = pipeline::enumerate_child_visible(fails, util::Seams{}, child);
    ASSERT_FALSE(failed);
    EXPECT_EQ(failed.error().code, util::ErrorCode::unavailable);
    EXPECT_NE(failed.error().message.find("cuInit failed"), std::string::npos)
        << failed.error().message;
}

TEST(IdentityJoin, LibraryLoadCheck) {
    EXPECT_FALSE(pipeline::cuda_library_loads(""));
    EXPECT_FALSE(pipeline::cuda_library_loads("/nonexistent/libcuda.so.1"));
    EXPECT_FALSE(pipeline::cuda_library_loads("libpeergate-no-such-driver.so.1"));
}

}  // namespace
}  // namespace peergate
