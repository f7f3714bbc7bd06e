// SPDX-License-Identifier: Apache-2.0
#include "model/link_label.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace peergate::model {
namespace {

TEST(LinkLabel, EveryLegendTokenRoundTrips) {
    for (const std::string token : {"X",
                                    "NV1",
                                    "NV2",
                                    "NV4",
                                    "NV8",
                                    "NV12",
                                    "NV18",
                                    "NV1024",
                                    "PIX",
                                    "PXB",
                                    "PHB",
                                    "NODE",
                                    "SYS"}) {
        SCOPED_TRACE(token);
        const auto label = LinkLabel::parse(token);
        ASSERT_TRUE(label.has_value());
        EXPECT_EQ(label->to_token(), token);
    }
}

TEST(LinkLabel, TokensMapToTheirKinds) {
    EXPECT_EQ(LinkLabel::parse("X"), LinkLabel::self());
    EXPECT_EQ(LinkLabel::parse("NV18"), LinkLabel::nvlink(18));
    EXPECT_EQ(LinkLabel::parse("PIX"), LinkLabel::of(LinkKind::pix));
    EXPECT_EQ(LinkLabel::parse("PXB"), LinkLabel::of(LinkKind::pxb));
    EXPECT_EQ(LinkLabel::parse("PHB"), LinkLabel::of(LinkKind::phb));
    EXPECT_EQ(LinkLabel::parse("NODE"), LinkLabel::of(LinkKind::node));
    EXPECT_EQ(LinkLabel::parse("SYS"), LinkLabel::of(LinkKind::sys));
    EXPECT_TRUE(LinkLabel::parse("NV2")->is_nvlink());
    EXPECT_FALSE(LinkLabel::parse("PIX")->is_nvlink());
}

TEST(LinkLabel, OldSocTokenIsAnAliasOfSys) {
    const auto label = LinkLabel::parse("SOC");
    ASSERT_TRUE(label.has_value());
    EXPECT_EQ(label->kind, LinkKind::sys);
    EXPECT_EQ(label->to_token(), "SYS");
}

TEST(LinkLabel, RejectsTokensOutsideTheLegend) {
    for (const std::string token : {"NV0",
                                    "NVx",
                                    "NV",
                                    "NV-1",
                                    "NV+1",
                                    "NV1025",
                                    "NV 2",
                                    "nv4",
                                    "x",
                                    "sys",
                                    "",
                                    "unknown",
                                    "N/A",
                                    "PIX ",
                                    "XX",
                                    "NV#"}) {
        EXPECT_FALSE(LinkLabel::parse(token).has_value()) << "'" << token << "'";
    }
}

TEST(LinkLabel, UnknownPrintsAsUnknown) {
    EXPECT_EQ(LinkLabel{}.kind, LinkKind::unknown);
    EXPECT_EQ(LinkLabel{}.to_token(), "unknown");
}

TEST(LinkLabel, OrdersBestFirstWithMoreNvlinksBetter) {
    const std::vector<LinkLabel> best_first{
        LinkLabel::self(),
        LinkLabel::nvlink(18),
        LinkLabel::nvlink(12),
        LinkLabel::nvlink(1),
        LinkLabel::of(LinkKind::pix),
        LinkLabel::of(LinkKind::pxb),
        LinkLabel::of(LinkKind::phb),
        LinkLabel::of(LinkKind::node),
        LinkLabel::of(LinkKind::sys),
        LinkLabel{},
    };
    for (std::size_t i = 0; i + 1 < best_first.size(); ++i) {
        EXPECT_LT(best_first[i], best_first[i + 1])
            << best_first[i].to_token() << " < " << best_first[i + 1].to_token();
    }
    std::vector<LinkLabel> shuffled = best_first;
    std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937(7));
    std::sort(shuffled.begin(), shuffled.end());
    EXPECT_EQ(shuffled, best_first);
}

TEST(LinkLabel, KindsCompareForThresholdRules) {
    EXPECT_LE(LinkLabel::parse("PIX")->kind, LinkKind::pix);
    EXPECT_GT(LinkLabel::parse("SYS")->kind, LinkKind::phb);
    EXPECT_LT(LinkLabel::parse("NV1")->kind, LinkKind::pix);
}

}  // namespace
}  // namespace peergate::model
