// SPDX-License-Identifier: Apache-2.0
// NVIDIA's Xid catalogue as peergate reads it (policy/doctor/xid_catalogue): every number
// issue 33 lists has its meaning, the table is ordered and complete, and the severities of
// the Xids that make a GPU or its links untrustworthy are errors.
#include "policy/doctor/xid_catalogue.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace peergate::policy::doctor {
namespace {

TEST(XidCatalogue, EveryListedNumberHasItsMeaning) {
    std::vector<int> listed{13, 31, 43, 45, 48, 61,  62,  63,  64,  68,  69,
                            74, 79, 92, 94, 95, 109, 119, 120, 122, 123, 124};
    for (int xid = 136; xid <= 156; ++xid) {
        listed.push_back(xid);
    }
    for (const int xid : listed) {
        const auto* meaning = xid_meaning(xid);
        ASSERT_NE(meaning, nullptr) << xid;
        EXPECT_EQ(meaning->xid, xid);
        EXPECT_FALSE(meaning->meaning.empty()) << xid;
        EXPECT_FALSE(meaning->remedy.empty()) << xid;
    }
}

TEST(XidCatalogue, NumbersItDoesNotDescribeHaveNone) {
    EXPECT_EQ(xid_meaning(0), nullptr);
    EXPECT_EQ(xid_meaning(1), nullptr);
    EXPECT_EQ(xid_meaning(9999), nullptr);
    EXPECT_EQ(xid_meaning(-1), nullptr);
}

TEST(XidCatalogue, IsOrderedWithoutRepeats) {
    const auto all = xid_catalogue();
    ASSERT_FALSE(all.empty());
    for (std::size_t i = 1; i < all.size(); ++i) {
        EXPECT_LT(all[i - 1].xid, all[i].xid) << i;
    }
}

TEST(XidCatalogue, WhatMakesTheGpuUntrustworthyIsAnError) {
    for (const int xid : {48, 74, 79, 95, 119, 120, 136, 140, 144, 145, 150}) {
        EXPECT_EQ(xid_meaning(xid)->severity, model::Severity::error) << xid;
    }
    EXPECT_EQ(xid_meaning(154)->severity, model::Severity::info) << "it summarises another Xid";
    EXPECT_NE(xid_meaning(154)->remedy.find("Drain P2P"), std::string_view::npos);
    EXPECT_NE(xid_meaning(79)->meaning.find("fallen off the bus"), std::string_view::npos);
}

}  // namespace
}  // namespace peergate::policy::doctor
