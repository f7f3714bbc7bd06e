// SPDX-License-Identifier: Apache-2.0
#include "model/pci_address.hpp"

#include <gtest/gtest.h>

namespace peergate::model {
namespace {

TEST(PciAddress, ParsesTheThreeFormsToTheSameValue) {
    const PciAddress expected{.domain = 0, .bus = 0x1B, .device = 0, .function = 0};
    for (const char* text :
         {"00000000:1B:00.0", "0000:1b:00.0", "1B:00.0", "1b:00.0", " 0000:1B:00.0\n"}) {
        SCOPED_TRACE(text);
        const auto parsed = PciAddress::parse(text);
        ASSERT_TRUE(parsed.has_value()) << parsed.error().message;
        EXPECT_EQ(*parsed, expected);
    }
}

TEST(PciAddress, PrintsNvmlAndSysfsForms) {
    const auto parsed = PciAddress::parse("0001:c3:1f.7");
    ASSERT_TRUE(parsed.has_value());
    EXPECT_EQ(parsed->domain, 1U);
    EXPECT_EQ(parsed->bus, 0xC3);
    EXPECT_EQ(parsed->device, 0x1F);
    EXPECT_EQ(parsed->function, 7);
    EXPECT_EQ(parsed->to_nvml(), "00000001:C3:1F.7");
    EXPECT_EQ(parsed->to_sysfs(), "0001:c3:1f.7");
}

TEST(PciAddress, RoundTripsThroughBothPrintedForms) {
    for (const char* text : {"00000000:1B:00.0", "0000:86:00.0", "0000:ff:1f.7", "0000:00:00.0"}) {
        const auto parsed = PciAddress::parse(text);
        ASSERT_TRUE(parsed.has_value()) << text;
        EXPECT_EQ(PciAddress::parse(parsed->to_nvml()).value(), *parsed);
        EXPECT_EQ(PciAddress::parse(parsed->to_sysfs()).value(), *parsed);
    }
}

TEST(PciAddress, RejectsWhatIsNotAnAddressSayingWhichPart) {
    struct Case {
        const char* text;
        const char* why;
    };

    const std::vector<Case> cases{
        {"", "expected [domain:]bus:device.function"},
        {"1B00.0", "expected [domain:]bus:device.function"},
        {"0000:1b:00", "expected [domain:]bus:device.function"},
        {"0:0000:1b:00.0", "expected [domain:]bus:device.function"},  // too many fields
        {"zz:00.0", "bad bus"},
        {"0000:1g:00.0", "bad bus"},
        {"0000:100:00.0", "bad bus"},
        {"0000:1b:20.0", "bad device"},  // device is 5 bits: at most 0x1f
        {"0000:1b:xx.0", "bad device"},
        {"0000:1b:00.8", "bad function"},  // function is 3 bits: at most 7
        {"0000:1b:00.", "bad function"},
        {"000000000:1b:00.0", "bad domain"},
        {"-1:1b:00.0", "bad domain"},
        {"0x00:1b:00.0", "bad domain"},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.text);
        const auto parsed = PciAddress::parse(c.text);
        ASSERT_FALSE(parsed.has_value()) << parsed->to_nvml();
        EXPECT_EQ(parsed.error().code, util::ErrorCode::invalid_input);
        EXPECT_NE(parsed.error().message.find(c.why), std::string::npos) << parsed.error().message;
    }
}

TEST(PciAddress, OrdersByDomainBusDeviceFunction) {
    EXPECT_LT(PciAddress::parse("0000:1b:00.0").value(), PciAddress::parse("0000:43:00.0").value());
    EXPECT_LT(PciAddress::parse("0000:ff:00.0").value(), PciAddress::parse("0001:00:00.0").value());
    EXPECT_LT(PciAddress::parse("0000:1b:00.0").value(), PciAddress::parse("0000:1b:00.1").value());
}

}  // namespace
}  // namespace peergate::model
