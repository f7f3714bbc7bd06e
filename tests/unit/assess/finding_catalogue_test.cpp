// SPDX-License-Identifier: Apache-2.0
// The catalogue of finding codes (model/finding_code.hpp): ids are unique and round-trip, the
// flags that replaced the hand-kept lists are where those lists were.
#include "model/finding.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace peergate::model {
namespace {

TEST(FindingCatalogue, EveryCodeHasAUniqueIdThatParsesBack) {
    std::set<std::string_view> ids;
    for (std::size_t i = 0; i < kFindingCodeCount; ++i) {
        const auto code = static_cast<FindingCode>(i);
        EXPECT_TRUE(ids.insert(id(code)).second) << id(code);
        EXPECT_FALSE(meta(code).label.empty()) << id(code);
        if (code != FindingCode::xid && code != FindingCode::sxid) {
            EXPECT_EQ(parse_finding_code(id(code)), code) << id(code);
        }
    }
    EXPECT_EQ(parse_finding_code("no_such_code"), std::nullopt);
}

TEST(FindingCatalogue, XidAndSxidCarryTheirNumber) {
    int number = 0;
    EXPECT_EQ(parse_finding_code("xid_79", &number), FindingCode::xid);
    EXPECT_EQ(number, 79);
    EXPECT_EQ(parse_finding_code("sxid_20034", &number), FindingCode::sxid);
    EXPECT_EQ(number, 20034);
    EXPECT_EQ(parse_finding_code("xid_"), std::nullopt);
    EXPECT_EQ(parse_finding_code("xid_7x"), std::nullopt);
    EXPECT_EQ((Finding{.code = FindingCode::xid, .xid = 79}).id(), "xid_79");
    EXPECT_EQ((Finding{.code = FindingCode::sxid, .sxid = 12028}).id(), "sxid_12028");
}

TEST(FindingCatalogue, TheFlagsHoldWhatTheListsHeld) {
    for (auto code : {FindingCode::no_nvidia_driver,
                      FindingCode::driver_version_mismatch,
                      FindingCode::nvswitch_fabric_not_ready}) {
        EXPECT_TRUE(has_flag(code, kNodeUnusable)) << id(code);
    }
    EXPECT_FALSE(has_flag(FindingCode::nvlink_down, kNodeUnusable));
    for (auto code : {FindingCode::pcie_p2p_under_translating_iommu,
                      FindingCode::probe_data_lost,
                      FindingCode::cached_probe_data_lost}) {
        EXPECT_TRUE(has_flag(code, kPeerCopiesUnsafe)) << id(code);
    }
    EXPECT_TRUE(has_flag(FindingCode::nvlink_down, kMarksGpu));
    EXPECT_EQ(meta(FindingCode::nvlink_down).label, "NVLinks down");
}

TEST(FindingCatalogue, AMeasuredLossIsStrongerEvidenceThanTheHypothesis) {
    EXPECT_LT(meta(FindingCode::probe_data_lost).evidence,
              meta(FindingCode::pcie_p2p_under_translating_iommu).evidence);
    EXPECT_LT(meta(FindingCode::cached_probe_data_lost).evidence,
              meta(FindingCode::pcie_p2p_under_translating_iommu).evidence);
}

}  // namespace
}  // namespace peergate::model
