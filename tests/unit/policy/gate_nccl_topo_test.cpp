// SPDX-License-Identifier: Apache-2.0
// The nccl profile against the topology file the job's NCCL will read: Azure's NCv4 image
// names one in /etc/nccl.conf that claims NVLink bridges on GPUs 0-1 and 2-3. While the bridges
// are up nothing changes; with the 0-1 bridge down the file still shows NCCL an NVLink, so
// NCCL_P2P_LEVEL=NVL would let P2P through over PCIe and the gate disables NCCL's P2P instead.
#include "gate_test_support.hpp"
#include "policy/gate/gate.hpp"
#include "sources/nccl/nccl_topo_xml.hpp"
#include "support/fixture_files.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>

namespace peergate::policy::gate {
namespace {

using namespace peergate::test;  // NOLINT(google-build-using-namespace)

model::NcclTopoFile azure_ncv4_file() {
    auto gpus =
        sources::nccl::parse_nccl_topo_xml(test::read_fixture("nccl_topo", "azure-ncv4-topo.xml"));
    EXPECT_TRUE(gpus.has_value());
    return {.path = "/opt/microsoft/ncv4/topo.xml",
            .named_by = "/etc/nccl.conf",
            .gpus = gpus.value_or(std::vector<model::NcclTopoGpu>{})};
}

// The NCv4 VM's four A100s at the file's bus ids; `bridge01` false: that bridge is down.
GateInput ncv4(bool bridge01, std::vector<int> selected, util::EnvMap vars = {}) {
    auto t = bridged_a100_4x();
    if (!bridge01) {
        t.matrix[0][1] = t.matrix[1][0] = model::LinkLabel::parse("SYS").value();
    }
    for (std::size_t i = 0; i < t.gpus.size(); ++i) {
        t.gpus[i].pci = model::PciAddress::parse(fmt::format("000{}:00:00.0", i + 1)).value();
    }
    auto in = input(t, gpus(std::move(selected)), std::move(vars));
    in.profile = Profile::nccl;
    in.nccl_topo_file = azure_ncv4_file();
    return in;
}

TEST(GateNcclTopo, AFileThatMatchesTheHostChangesNothing) {
    const auto bridged = decide(ncv4(true, {0, 1}));
    EXPECT_FALSE(bridged.set_value("NCCL_P2P_LEVEL"));
    EXPECT_FALSE(bridged.set_value("NCCL_P2P_DISABLE"));
    const auto across = decide(ncv4(true, {0, 2}));  // SYS, and the file says so
    EXPECT_EQ(across.set_value("NCCL_P2P_LEVEL"), "NVL");
    EXPECT_FALSE(across.set_value("NCCL_P2P_DISABLE"));
    EXPECT_FALSE(warns_about(across, "topology file"));
}

TEST(GateNcclTopo, AnNvlinkTheHostLostDisablesNcclP2p) {
    const auto d = decide(ncv4(false, {0, 1}));
    EXPECT_FALSE(d.p2p);
    EXPECT_EQ(d.set_value("NCCL_P2P_DISABLE"), "1");
    EXPECT_FALSE(d.set_value("NCCL_P2P_LEVEL"));
    EXPECT_TRUE(warns_about(d,
                            "NCCL's topology file /opt/microsoft/ncv4/topo.xml (/etc/nccl.conf) "
                            "shows an NVLink where this host has none (GPU 0 to GPU 1 is SYS)"));
    // The whole box: the claim on 0-1 is enough.
    EXPECT_EQ(decide(ncv4(false, {0, 1, 2, 3})).set_value("NCCL_P2P_DISABLE"), "1");
    // Pairs the file does not claim keep the usual plan.
    EXPECT_EQ(decide(ncv4(false, {0, 2})).set_value("NCCL_P2P_LEVEL"), "NVL");
}

TEST(GateNcclTopo, TheUsersNcclSettingIsKeptWithTheWarning) {
    const auto d = decide(ncv4(false, {0, 1}, env({{"NCCL_P2P_LEVEL", "NVL"}})));
    EXPECT_FALSE(d.set_value("NCCL_P2P_DISABLE"));
    EXPECT_EQ(d.kept_value("NCCL_P2P_LEVEL"), "NVL");
    EXPECT_TRUE(warns_about(d, "your NCCL_P2P settings are kept"));
}

TEST(GateNcclTopo, VouchedPcieOrAnotherProfileLeavesItAlone) {
    auto forced = ncv4(false, {0, 1}, env({{"PEERGATE_FORCE_P2P", "1"}}));
    EXPECT_FALSE(decide(forced).set_value("NCCL_P2P_DISABLE"));
    auto llama = ncv4(false, {0, 1});
    llama.profile = Profile::llama_cpp;
    const auto d = decide(llama);
    EXPECT_FALSE(d.set_value("NCCL_P2P_DISABLE"));
    EXPECT_FALSE(warns_about(d, "topology file"));
}

TEST(GateNcclTopo, AFileNcclWouldRefuseOrPeergateCannotReadIsWarnedOfAndAMissingOneIsNot) {
    auto malformed = ncv4(true, {0, 1});
    malformed.nccl_topo_file->malformed = "NCCL topology file: <cpu> is not closed";
    EXPECT_TRUE(warns_about(decide(malformed),
                            "NCCL will refuse its topology file /opt/microsoft/ncv4/topo.xml "
                            "(/etc/nccl.conf) and fail at init: NCCL topology file: <cpu> is "
                            "not closed"));
    auto unchecked = ncv4(false, {0, 1});
    unchecked.nccl_topo_file->unreadable = "cannot read /opt/t.xml: not a regular file";
    unchecked.nccl_topo_file->gpus.clear();
    EXPECT_TRUE(warns_about(decide(unchecked),
                            "(/etc/nccl.conf) was not checked for NVLinks this host lacks: cannot "
                            "read /opt/t.xml: not a regular file"));
    // A file peergate cannot read may claim any NVLink: NCCL_P2P_LEVEL=NVL would not keep that
    // pair's P2P traffic off PCIe, so NCCL's P2P is disabled (issue 34, item 8).
    const auto doubt = decide(unchecked);
    EXPECT_EQ(doubt.set_value("NCCL_P2P_DISABLE"), "1");
    EXPECT_FALSE(doubt.set_value("NCCL_P2P_LEVEL"));
    EXPECT_TRUE(warns_about(doubt, "peergate sets NCCL_P2P_DISABLE=1"));
    auto kept = unchecked;
    kept.env.set("NCCL_P2P_LEVEL", "NVL");
    EXPECT_EQ(decide(kept).kept_value("NCCL_P2P_LEVEL"), "NVL") << "the user's setting stays";
    auto missing = ncv4(false, {0, 1});
    missing.nccl_topo_file->exists = false;
    missing.nccl_topo_file->gpus.clear();
    const auto d = decide(missing);
    EXPECT_FALSE(warns_about(d, "topology file"));
    EXPECT_EQ(d.set_value("NCCL_P2P_LEVEL"), "NVL");
}

}  // namespace
}  // namespace peergate::policy::gate
