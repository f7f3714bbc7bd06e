// SPDX-License-Identifier: Apache-2.0
// vllm_p2p_cache_trusted: vLLM's cached "peer access works" on a host whose PCIe peer copies
// the doctor has found unsafe.
#include "policy/doctor/vllm.hpp"

#include <gtest/gtest.h>

namespace peergate::policy::doctor {
namespace {

using model::Finding;
using model::Severity;

model::VllmP2pCache cache(const std::string& devices, std::vector<std::string> works) {
    return model::VllmP2pCache{
        .path = "/home/u/.cache/vllm/gpu_p2p_access_cache_for_" + devices + ".json",
        .visible_devices = devices,
        .says_works = std::move(works)};
}

const std::vector<Finding> kUnderIommu{
    {.code = peergate::model::FindingCode::pcie_p2p_under_translating_iommu,
     .severity = Severity::error}};

TEST(DoctorVllm, ACacheThatClaimsPeerAccessOnAnUnsafeHostIsNamed) {
    const auto finding =
        p2p_cache_finding(kVllmCache,
                          {cache("0,1", {"0->0", "0->1", "1->0", "1->1"}), cache("2,3", {"2->2"})},
                          kUnderIommu);
    ASSERT_TRUE(finding.has_value());
    EXPECT_EQ(finding->id(), "vllm_p2p_cache_trusted");
    EXPECT_EQ(finding->severity, Severity::warning);
    EXPECT_NE(finding->message.find("where pcie_p2p_under_translating_iommu says"),
              std::string::npos);
    EXPECT_NE(finding->message.find("gpu_p2p_access_cache_for_0,1.json (0->1, 1->0)"),
              std::string::npos)
        << finding->message;
    EXPECT_EQ(finding->message.find("2,3"), std::string::npos) << "self pairs claim nothing";
    EXPECT_NE(finding->remedy.find("--disable-custom-all-reduce"), std::string::npos);
}

TEST(DoctorVllm, DataLostInTheProbeCountsAsUnsafe) {
    const std::vector<Finding> lost{
        {.code = peergate::model::FindingCode::probe_data_lost, .severity = Severity::error}};
    EXPECT_TRUE(p2p_cache_finding(kVllmCache, {cache("0,1", {"0->1"})}, lost).has_value());
    const std::vector<Finding> cached{{.code = peergate::model::FindingCode::cached_probe_data_lost,
                                       .severity = Severity::error}};
    EXPECT_TRUE(p2p_cache_finding(kVllmCache, {cache("0,1", {"0->1"})}, cached).has_value())
        << "a loss the verdict cache recorded on this boot counts as one seen now";
}

// Device numbers of two digits: "10->10" is a device with itself, "10->1" is not.
TEST(DoctorVllm, SelfPairsOfTwoDigitDevicesClaimNothing) {
    EXPECT_FALSE(p2p_cache_finding(kVllmCache, {cache("10,11", {"10->10", "11->11"})}, kUnderIommu)
                     .has_value());
    const auto finding =
        p2p_cache_finding(kVllmCache, {cache("1,10", {"10->1", "1->1"})}, kUnderIommu);
    ASSERT_TRUE(finding.has_value());
    EXPECT_NE(finding->message.find("(10->1)"), std::string::npos) << finding->message;
}

TEST(DoctorVllm, NothingToSayOnASafeHostOrWithoutAClaim) {
    const std::vector<Finding> safe{
        {.code = peergate::model::FindingCode::probe_intact, .severity = Severity::info}};
    EXPECT_FALSE(p2p_cache_finding(kVllmCache, {cache("0,1", {"0->1"})}, safe).has_value());
    EXPECT_FALSE(
        p2p_cache_finding(kVllmCache, {cache("0,1", {"0->0", "1->1"})}, kUnderIommu).has_value());
    EXPECT_FALSE(p2p_cache_finding(kVllmCache, {}, kUnderIommu).has_value());
    const std::vector<Finding> warned{
        {.code = peergate::model::FindingCode::pcie_p2p_under_translating_iommu,
         .severity = Severity::warning}};
    EXPECT_FALSE(p2p_cache_finding(kVllmCache, {cache("0,1", {"0->1"})}, warned).has_value());
}

TEST(DoctorVllm, SglangsCacheIsItsOwnFindingWithItsOwnRemedy) {
    const auto finding =
        p2p_cache_finding(kSglangCache,
                          {{.path = "/home/u/.cache/sglang/gpu_p2p_access_cache_for_0,1.json",
                            .visible_devices = "0,1",
                            .says_works = {"0->1"}}},
                          kUnderIommu);
    ASSERT_TRUE(finding.has_value());
    EXPECT_EQ(finding->id(), "sglang_p2p_cache_trusted");
    EXPECT_EQ(finding->message.rfind("SGLang's own P2P cache says peer access works", 0), 0U);
    EXPECT_NE(finding->remedy.find("launch SGLang with --disable-custom-all-reduce (peergate "
                                   "exec --for sglang names both at launch); "
                                   "SGLANG_SKIP_P2P_CHECK=0 alone"),
              std::string::npos)
        << finding->remedy;
}

}  // namespace
}  // namespace peergate::policy::doctor
