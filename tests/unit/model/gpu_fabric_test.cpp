// SPDX-License-Identifier: Apache-2.0
// A GPU's fabric registration: the health mask's two-bit fields, the state names, and the
// cluster UUID's sixteen bytes in and out of their text form.
#include "model/gpu_fabric.hpp"

#include <gtest/gtest.h>

namespace peergate::model {
namespace {

TEST(GpuFabric, ReadyOnlyWhenCompletedWithSuccess) {
    EXPECT_TRUE((GpuFabric{.state = FabricState::completed}).ready());
    EXPECT_FALSE((GpuFabric{.state = FabricState::completed, .status = 999}).ready());
    for (const auto state : {FabricState::not_supported,
                             FabricState::not_started,
                             FabricState::in_progress,
                             FabricState::unknown}) {
        EXPECT_FALSE((GpuFabric{.state = state}).ready()) << to_string(state);
    }
}

TEST(GpuFabric, HealthFieldsAreTwoBitsEachAndOneMeansTrue) {
    const auto with_mask = [](std::uint32_t mask) {
        return GpuFabric{.state = FabricState::completed, .health_mask = mask};
    };
    EXPECT_TRUE(with_mask(0x1).bandwidth_degraded());
    EXPECT_FALSE(with_mask(0x2).bandwidth_degraded()) << "2 is FALSE";
    EXPECT_FALSE(with_mask(0x0).bandwidth_degraded()) << "0 is NOT_SUPPORTED";
    EXPECT_FALSE(with_mask(0x3).bandwidth_degraded());
    EXPECT_TRUE(with_mask(0x10).route_unhealthy());
    EXPECT_FALSE(with_mask(0x20).route_unhealthy());
    EXPECT_FALSE(with_mask(0x4).route_unhealthy()) << "bits 2-3 are route recovery";
    EXPECT_FALSE(GpuFabric{.state = FabricState::completed}.bandwidth_degraded())
        << "no mask (the v1 structure) says nothing";
}

TEST(GpuFabric, StateNamesRoundTrip) {
    for (const auto state : {FabricState::not_supported,
                             FabricState::not_started,
                             FabricState::in_progress,
                             FabricState::completed,
                             FabricState::unknown}) {
        EXPECT_EQ(parse_fabric_state(to_string(state)), state);
    }
    EXPECT_EQ(parse_fabric_state("In Progress"), std::nullopt);
    EXPECT_EQ(display_name(FabricState::in_progress), "In Progress");
    EXPECT_EQ(display_name(FabricState::not_supported), "N/A");
}

TEST(GpuFabric, ClusterUuidBytesRoundTripThroughText) {
    const unsigned char bytes[16] = {0x9c,
                                     0x6f,
                                     0x5a,
                                     0xf3,
                                     0x53,
                                     0xbf,
                                     0x49,
                                     0xb5,
                                     0xa4,
                                     0x36,
                                     0xb6,
                                     0x67,
                                     0x66,
                                     0xc4,
                                     0x13,
                                     0xc3};
    const std::string text = format_cluster_uuid(bytes);
    EXPECT_EQ(text, "9c6f5af3-53bf-49b5-a436-b66766c413c3");
    const auto parsed = parse_cluster_uuid(text);
    ASSERT_TRUE(parsed.has_value());
    EXPECT_TRUE(std::equal(parsed->begin(), parsed->end(), std::begin(bytes)));
    const unsigned char zeros[16] = {};
    EXPECT_EQ(format_cluster_uuid(zeros), "");
    EXPECT_EQ(parse_cluster_uuid(""), ClusterUuidBytes{});
}

TEST(GpuFabric, ClusterUuidTextOfAnyOtherShapeIsRefused) {
    for (const char* bad : {"9c6f5af3",
                            "9c6f5af353bf49b5a436b66766c413c3",
                            "9c6f5af3-53bf-49b5-a436-b66766c413c",
                            "9c6f5af3-53bf-49b5-a436-b66766c413c3a",
                            "9c6f5af3_53bf-49b5-a436-b66766c413c3",
                            "9c6f5af3-53bf-49b5-a436-b66766c413zz",
                            "+c6f5af3-53bf-49b5-a436-b66766c413c3"}) {
        EXPECT_EQ(parse_cluster_uuid(bad), std::nullopt) << bad;
    }
}

}  // namespace
}  // namespace peergate::model
