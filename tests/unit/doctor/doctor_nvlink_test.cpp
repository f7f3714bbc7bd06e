// SPDX-License-Identifier: Apache-2.0
// NVLinks down (policy/doctor/nvlink.cpp): named where most GPUs of the model have more up,
// an error on an NVSwitch fabric, a warning between bridged cards, and nothing where the
// differences are by design (a cube mesh, unbridged cards, mixed models).
#include "policy/doctor/nvlink.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace peergate::policy::doctor {
namespace {

using model::Severity;

// A GPU with `slots` links, those in `down` inactive, the rest ending at switches or not.
GpuLinks gpu(
    int index, int slots, std::vector<int> down, bool switched, std::string name = "B200") {
    GpuLinks links{.gpu = index, .name = std::move(name), .slots = slots, .down = std::move(down)};
    links.to_switch = switched ? links.up() : 0;
    return links;
}

std::vector<GpuLinks> hgx(std::vector<int> gpu3_down) {
    std::vector<GpuLinks> out;
    for (int g = 0; g < 8; ++g) {
        out.push_back(gpu(g, 18, g == 3 ? gpu3_down : std::vector<int>{}, true));
    }
    return out;
}

TEST(NvlinkDown, TwoLinksDownOnAnNvswitchBaseboardIsAnError) {
    const auto findings = nvlink_down_findings(hgx({4, 11}));
    ASSERT_EQ(findings.size(), 1U);
    EXPECT_EQ(findings[0].id(), "nvlink_down");
    EXPECT_EQ(findings[0].severity, Severity::error);
    EXPECT_EQ(findings[0].gpus, std::vector<int>{3});
    EXPECT_NE(findings[0].message.find("16 of its 18 NVLinks up (down: links 4, 11)"),
              std::string::npos)
        << findings[0].message;
    EXPECT_NE(findings[0].message.find("7 other B200 GPUs have 18 up"), std::string::npos);
    EXPECT_NE(findings[0].remedy.find("nvidia-smi nvlink -s -i 3"), std::string::npos);
    EXPECT_NE(findings[0].remedy.find("Xid 74"), std::string::npos);
}

TEST(NvlinkDown, EveryLinkDownOnAnNvswitchBaseboardIsNamedToo) {
    std::vector<int> all(18);
    for (int k = 0; k < 18; ++k) {
        all[static_cast<std::size_t>(k)] = k;
    }
    const auto findings = nvlink_down_findings(hgx(all));
    ASSERT_EQ(findings.size(), 1U);
    EXPECT_EQ(findings[0].severity, Severity::error);
    EXPECT_NE(findings[0].message.find("none of its 18 NVLinks up"), std::string::npos);
    EXPECT_NE(findings[0].message.find("fall back to PCIe"), std::string::npos);
}

TEST(NvlinkDown, AHealthyFabricSaysNothing) {
    EXPECT_TRUE(nvlink_down_findings(hgx({})).empty());
}

// DGX-1: each V100 has 6 links, split NV1/NV2 over four peers; all up, nothing to say.
TEST(NvlinkDown, ACubeMeshWithEveryLinkUpSaysNothing) {
    std::vector<GpuLinks> dgx1;
    for (int g = 0; g < 8; ++g) {
        dgx1.push_back(gpu(g, 6, {}, false, "Tesla V100-SXM2-16GB"));
    }
    EXPECT_TRUE(nvlink_down_findings(dgx1).empty());
}

TEST(NvlinkDown, AHalfSeatedBridgeIsAWarning) {
    // Four A100 PCIe cards bridged in pairs with 12 links; card 2's bridge lost 4 of them.
    const std::vector<GpuLinks> cards{gpu(0, 12, {}, false, "A100"),
                                      gpu(1, 12, {}, false, "A100"),
                                      gpu(2, 12, {0, 1, 2, 3}, false, "A100"),
                                      gpu(3, 12, {}, false, "A100")};
    const auto findings = nvlink_down_findings(cards);
    ASSERT_EQ(findings.size(), 1U);
    EXPECT_EQ(findings[0].severity, Severity::warning);
    EXPECT_EQ(findings[0].gpus, std::vector<int>{2});
    EXPECT_NE(findings[0].remedy.find("bridge"), std::string::npos);
}

// Beside bridged cards, a card without a bridge is a choice, not a fault.
TEST(NvlinkDown, AnUnbridgedCardBesideBridgedOnesIsNotNamed) {
    const std::vector<GpuLinks> cards{gpu(0, 4, {}, false, "RTX 3090"),
                                      gpu(1, 4, {}, false, "RTX 3090"),
                                      gpu(2, 4, {0, 1, 2, 3}, false, "RTX 3090")};
    EXPECT_TRUE(nvlink_down_findings(cards).empty());
}

TEST(NvlinkDown, ModelsAreComparedOnlyWithThemselves) {
    // An H100 with 18 links up beside an A100 with 12: different parts, nothing down.
    const std::vector<GpuLinks> mixed{gpu(0, 18, {}, true, "H100"), gpu(1, 12, {}, true, "A100")};
    EXPECT_TRUE(nvlink_down_findings(mixed).empty());
}

TEST(NvlinkDown, ALoneGpuOfItsModelHasNoneToCompareWith) {
    EXPECT_TRUE(nvlink_down_findings({gpu(0, 18, {4}, true)}).empty());
}

// Fewer links up than the others, yet none listed down: fewer slots, another variant.
TEST(NvlinkDown, FewerSlotsWithNoneDownIsNotAFault) {
    const std::vector<GpuLinks> gpus{
        gpu(0, 18, {}, true), gpu(1, 18, {}, true), gpu(2, 12, {}, true)};
    EXPECT_TRUE(nvlink_down_findings(gpus).empty());
}

TEST(NvlinkDown, EachDegradedGpuHasItsOwnFindingInIndexOrder) {
    auto gpus = hgx({});
    gpus[6].down = {0};
    gpus[1].down = {2, 3};
    const auto findings = nvlink_down_findings(gpus);
    ASSERT_EQ(findings.size(), 2U);
    EXPECT_EQ(findings[0].gpus, std::vector<int>{1});
    EXPECT_EQ(findings[1].gpus, std::vector<int>{6});
    EXPECT_NE(findings[1].message.find("17 of its 18 NVLinks up (down: link 0)"), std::string::npos)
        << findings[1].message;
}

}  // namespace
}  // namespace peergate::policy::doctor
