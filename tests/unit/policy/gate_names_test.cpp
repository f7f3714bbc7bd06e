// SPDX-License-Identifier: Apache-2.0
#include "policy/gate/names.hpp"
#include "util/strings.hpp"

#include <gtest/gtest.h>

namespace peergate::policy::gate {
namespace {

struct NameCase {
    const char* name;
    bool datacenter;
    bool nvlink;
};

TEST(GateNames, WordBoundedCaseInsensitiveLists) {
    // clang-format off
    const NameCase cases[] = {
        {"NVIDIA RTX A1000 Laptop GPU", false, false},  // not an a100
        {"RTX A3000 Laptop GPU", false, false},         // not an a30
        {"NVIDIA A100-SXM4-80GB", true, true},
        {"NVIDIA A100 80GB PCIe", true, true},
        {"nvidia a100-sxm4-40gb", true, true},
        {"NVIDIA A30", true, true},
        {"NVIDIA GH200 480GB", true, true},
        {"NVIDIA H100 80GB HBM3", true, true},
        {"NVIDIA H200", true, true},
        {"NVIDIA H800", true, true},
        {"NVIDIA B200", true, true},
        {"NVIDIA B100", true, true},
        {"NVIDIA B300 SXM6 AC", true, true},
        {"NVIDIA GB200", true, true},
        {"NVIDIA GB300", true, true},
        {"NVIDIA L40", true, false},
        {"NVIDIA L40S", true, false},
        {"NVIDIA L4", true, false},
        {"NVIDIA RTX 6000 Ada Generation", true, false},
        {"NVIDIA RTX PRO 6000 Blackwell Server Edition", true, false},
        {"Quadro RTX 6000", false, false},  // Turing: neither "rtx 6000 ada" nor "rtx pro 6000"
        {"NVIDIA GeForce RTX 4090", false, false},
        {"Tesla V100-SXM2-32GB", false, false},  // NVLink-capable, but only the matrix can say so
        {"NVIDIA A800-SXM4-80GB", false, false},
        {"NVIDIA H20", false, false},
        {"NVIDIA A10", false, false},
        {"NVIDIA A40", false, false},
        {"NVIDIA L20", false, false},
        {"", false, false},
    };
    // clang-format on
    for (const auto& c : cases) {
        SCOPED_TRACE(c.name);
        EXPECT_EQ(is_datacenter_name(c.name), c.datacenter);
        EXPECT_EQ(is_nvlink_capable_name(c.name), c.nvlink);
    }
}

TEST(GateNames, L4DoesNotFireInsideL40) {
    EXPECT_FALSE(util::contains_word("NVIDIA L40", "l4"));
    EXPECT_FALSE(util::contains_word("NVIDIA L40S", "l40"));
    EXPECT_TRUE(util::contains_word("NVIDIA L40S", "l40s"));
    EXPECT_TRUE(util::contains_word("NVIDIA L4", "l4"));
}

}  // namespace
}  // namespace peergate::policy::gate
