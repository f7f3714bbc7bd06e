// SPDX-License-Identifier: Apache-2.0
// The doctor's findings on the NCCL topology file the node's jobs read: Azure's NCv4 file on
// a bridged A100 box, with both bridges up, with the 0-1 bridge down, and files NCCL would
// refuse or cannot open.
#include "policy/doctor/nccl_topo.hpp"
#include "sources/nccl/nccl_topo_xml.hpp"
#include "support/fixture_files.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace peergate::policy::doctor {
namespace {

// Four A100s at the file's bus ids, bridged 0-1 and 2-3; `bridge01` false: that bridge is down.
model::Topology ncv4_host(bool bridge01) {
    model::Topology t;
    const char* rows[4][4] = {{"X", bridge01 ? "NV12" : "SYS", "SYS", "SYS"},
                              {bridge01 ? "NV12" : "SYS", "X", "SYS", "SYS"},
                              {"SYS", "SYS", "X", "NV12"},
                              {"SYS", "SYS", "NV12", "X"}};
    for (int i = 0; i < 4; ++i) {
        t.gpus.push_back(
            {.index = i,
             .pci = model::PciAddress::parse("000" + std::to_string(i + 1) + ":00:00.0").value()});
        std::vector<model::LinkLabel> row;
        for (const char* token : rows[i]) {
            row.push_back(model::LinkLabel::parse(token).value());
        }
        t.matrix.push_back(row);
    }
    return t;
}

model::NcclTopoFile ncv4_file() {
    auto gpus =
        sources::nccl::parse_nccl_topo_xml(test::read_fixture("nccl_topo", "azure-ncv4-topo.xml"));
    return {.path = "/opt/microsoft/ncv4/topo.xml",
            .named_by = "/etc/nccl.conf",
            .gpus = gpus.value_or(std::vector<model::NcclTopoGpu>{})};
}

TEST(DoctorNcclTopo, AFileThatMatchesTheHostSaysNothing) {
    EXPECT_TRUE(nccl_topo_findings(ncv4_file(), ncv4_host(true), {0, 1, 2, 3}, true).empty());
    EXPECT_TRUE(nccl_topo_findings(std::nullopt, ncv4_host(false), {0, 1}, true).empty());
}

TEST(DoctorNcclTopo, ALostBridgeTheFileStillShowsIsAnErrorWherePcieCopiesCanBeDropped) {
    auto findings = nccl_topo_findings(ncv4_file(), ncv4_host(false), {0, 1, 2, 3}, true);
    ASSERT_EQ(findings.size(), 1U);
    EXPECT_EQ(findings[0].id(), "nccl_topo_file_false_nvlink");
    EXPECT_EQ(findings[0].severity, model::Severity::error);
    EXPECT_EQ(findings[0].gpus, (std::vector<int>{0, 1}));
    EXPECT_THAT(findings[0].message,
                testing::HasSubstr("/opt/microsoft/ncv4/topo.xml (named by /etc/nccl.conf) lists "
                                   "NVLinks this host does not have: GPU 0 to GPU 1 (SYS)"));
    findings = nccl_topo_findings(ncv4_file(), ncv4_host(false), {0, 1}, false);
    ASSERT_EQ(findings.size(), 1U);
    EXPECT_EQ(findings[0].severity, model::Severity::warning);
    EXPECT_TRUE(nccl_topo_findings(ncv4_file(), ncv4_host(false), {2, 3}, true).empty());
}

TEST(DoctorNcclTopo, AFileNcclWouldRefuseIsAWarningAndAMissingOneNothing) {
    auto file = ncv4_file();
    file.malformed = "NCCL topology file: <cpu> is not closed";
    auto findings = nccl_topo_findings(file, ncv4_host(true), {0, 1}, true);
    ASSERT_EQ(findings.size(), 1U);
    EXPECT_EQ(findings[0].id(), "nccl_topo_file_malformed");
    file.malformed.clear();
    file.unreadable = "cannot read /opt/t.xml: not a regular file";
    findings = nccl_topo_findings(file, ncv4_host(false), {0, 1}, true);
    ASSERT_EQ(findings.size(), 1U);
    EXPECT_EQ(findings[0].id(), "nccl_topo_file_unchecked");
    EXPECT_EQ(findings[0].severity, model::Severity::info);
    file.exists = false;
    EXPECT_TRUE(nccl_topo_findings(file, ncv4_host(false), {0, 1}, true).empty());
}

}  // namespace
}  // namespace peergate::policy::doctor
