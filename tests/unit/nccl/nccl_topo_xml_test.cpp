// SPDX-License-Identifier: Apache-2.0
// NCCL topology files read as NCCL's reader reads them: the NVLinks each <gpu> lists, from
// files cloud images ship and files NCCL dumped (tests/fixtures/README.md, "NCCL topology
// files"), and the refusals NCCL itself would make.
#include "sources/nccl/nccl_topo_xml.hpp"

#include "support/fixture_files.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace peergate::sources::nccl {
namespace {

using test::read_fixture;

model::PciAddress pci(const char* text) {
    return *model::PciAddress::parse(text);
}

model::NcclTopoFile file_of(const std::string& fixture) {
    auto gpus = parse_nccl_topo_xml(read_fixture("nccl_topo", fixture));
    EXPECT_TRUE(gpus.has_value()) << (gpus ? "" : gpus.error().message);
    return {.path = fixture, .gpus = gpus.value_or(std::vector<model::NcclTopoGpu>{})};
}

TEST(NcclTopoXml, AzureNcv4ClaimsTheBridgedPairsOnly) {
    const auto file = file_of("azure-ncv4-topo.xml");
    ASSERT_EQ(file.gpus.size(), 4U);
    EXPECT_EQ(
        file.gpus[0],
        (model::NcclTopoGpu{
            .bus = pci("0001:00:00.0"), .peers = {pci("0002:00:00.0")}, .lists_nvlinks = true}));
    EXPECT_TRUE(file.claims_nvlink(pci("0001:00:00.0"), pci("0002:00:00.0")));
    EXPECT_TRUE(file.claims_nvlink(pci("0004:00:00.0"), pci("0003:00:00.0")));
    EXPECT_FALSE(file.claims_nvlink(pci("0001:00:00.0"), pci("0003:00:00.0")));
    EXPECT_FALSE(file.claims_nvlink(pci("0002:00:00.0"), pci("0004:00:00.0")));
}

TEST(NcclTopoXml, NvswitchLinksClaimEveryPairOfSwitchedGpus) {
    const auto file = file_of("nccl-tests-256-h200-baremetal-dump.xml");
    ASSERT_EQ(file.gpus.size(), 3U);
    for (const auto& gpu : file.gpus) {
        EXPECT_TRUE(gpu.to_switch);
        EXPECT_TRUE(gpu.peers.empty());
    }
    EXPECT_TRUE(file.claims_nvlink(pci("0000:18:00.0"), pci("0000:3a:00.0")));
    // A GPU the file does not list is NCCL's to ask NVML about: no claim.
    EXPECT_FALSE(file.claims_nvlink(pci("0000:18:00.0"), pci("0000:ba:00.0")));
}

TEST(NcclTopoXml, AnInvisibleSwitchNeedsNoBusId) {
    const auto file = file_of("nccl-tests-256-h200-vm-dump.xml");
    ASSERT_EQ(file.gpus.size(), 1U);
    EXPECT_TRUE(file.gpus[0].to_switch);
    EXPECT_EQ(file.gpus[0].bus, pci("0000:05:00.0"));
}

TEST(NcclTopoXml, FilesWithoutNvlinksClaimNothing) {
    EXPECT_TRUE(file_of("aws-p4d-24xl-topo.xml").gpus.empty());  // comments, leaf GPUs
    const auto p5 = file_of("aws-p5.48xl-topo-first-two-switches.xml");
    ASSERT_EQ(p5.gpus.size(), 2U);
    EXPECT_FALSE(p5.gpus[0].lists_nvlinks);
    EXPECT_FALSE(p5.claims_nvlink(pci("0000:4f:00.0"), pci("0000:60:00.0")));
}

TEST(NcclTopoXml, ElementsNcclDoesNotHandleAreSkippedWhole) {
    // A <gpu> directly under <cpu> and an <nvlink> under <pci> are not NCCL's layout: skipped.
    const auto gpus = parse_nccl_topo_xml(
        "<system version=\"1\">\n"
        "  <cpu numaid=\"0\"><gpu dev=\"0\"><nvlink target=\"0000:02:00.0\" count=\"1\" "
        "tclass=\"0x030200\"/></gpu>\n"
        "    <pci busid=\"0000:01:00.0\"><nvlink target=\"0000:02:00.0\" tclass=\"0x030200\"/>"
        "</pci>\n"
        "  </cpu>\n"
        "  <graphs><gpu/></graphs>\n"
        "</system>\n");
    ASSERT_TRUE(gpus.has_value()) << gpus.error().message;
    EXPECT_TRUE(gpus->empty());
}

TEST(NcclTopoXml, WhatNcclRefusesIsAnErrorThatSaysWhere) {
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"<system version=\"2\"></system>", "NCCL reads version 1 only"},
        {"<system></system>", "<system> has no version"},
        {"<system version=\"1\"><cpu></system>", "</system> closes <cpu>"},
        {"<system version=\"1\"><cpu>", "<cpu> is not closed"},
        {"<system version=1></system>", "expected a quoted value"},
        {"<system version=\"1\">\t<cpu/></system>", "expected '<', found '\t'"},
        {"<!-- never closed <system version=\"1\"/>", "an unterminated comment"},
        {"<system version=\"1", "the text ends inside a value"},
        {"<system version=\"1\"><cpu numaid=\"0\"><pci busid=\"zz\"><gpu/></pci></cpu></system>",
         "not a PCI bus id"},
        {"<system version=\"1\" name=\"" + std::string(300, 'x') + "\"/>",
         "255 characters or more"},
    };
    for (const auto& [text, why] : cases) {
        SCOPED_TRACE(text.substr(0, 60));
        const auto gpus = parse_nccl_topo_xml(text);
        ASSERT_FALSE(gpus.has_value());
        EXPECT_THAT(gpus.error().message, testing::HasSubstr(why));
    }
}

TEST(NcclTopoXml, DeepNestingIsRefusedNotRecursed) {
    std::string text = "<system version=\"1\">";
    for (int i = 0; i < 300; ++i) {
        text += "<x>";
    }
    const auto gpus = parse_nccl_topo_xml(text);
    ASSERT_FALSE(gpus.has_value());
    EXPECT_THAT(gpus.error().message, testing::HasSubstr("nested more than 256 deep"));
}

TEST(NcclTopoXml, AMillionCommentsDoNotGrowTheStack) {
    std::string text;
    for (int i = 0; i < 1'000'000; ++i) {
        text += "<!---->";
    }
    const auto gpus = parse_nccl_topo_xml(text + "<system version=\"1\"/>");
    ASSERT_TRUE(gpus.has_value()) << gpus.error().message;
    EXPECT_TRUE(gpus->empty());
}

TEST(NcclTopoXml, PeergatesOwnExportClaimsNothing) {
    const auto gpus = parse_nccl_topo_xml(
        "<system version=\"1\" name=\"peergate 0.1.0 n\">\n  <cpu numaid=\"0\">\n"
        "    <pci busid=\"0000:06:00.0\" class=\"0x030200\" link_width=\"0\"/>\n  </cpu>\n"
        "</system>\n");
    ASSERT_TRUE(gpus.has_value()) << gpus.error().message;
    EXPECT_TRUE(gpus->empty());
}

}  // namespace
}  // namespace peergate::sources::nccl
