// SPDX-License-Identifier: Apache-2.0
// driver_version_mismatch from the tiers' own words (policy/doctor_driver_mismatch): NVML's
// error string, nvidia-smi's two lines, and the running module's version.
#include "policy/doctor/driver_mismatch.hpp"

#include <gtest/gtest.h>

namespace peergate::policy::doctor {
namespace {

DoctorInput failed_with(std::vector<std::string> reasons) {
    DoctorInput input;
    for (auto& reason : reasons) {
        input.discovery.attempts.push_back(
            model::TierAttempt{.tier = "tier", .reason = std::move(reason)});
    }
    return input;
}

TEST(DriverMismatch, NvidiaSmisLinesGiveTheLibraryVersion) {
    auto input = failed_with(
        {"nvmlInit_v2 failed: 18 (RM has detected an NVML/RM version mismatch)",
         "'nvidia-smi topo -m' exited with status 18: Failed to initialize NVML: Driver/library "
         "version mismatch; NVML library version: 535.161"});
    input.host.nvidia_module = model::NvidiaKernelModule{
        .flavour = model::KernelModuleFlavour::proprietary, .version = "535.129.03"};
    EXPECT_EQ(mismatched_library_version(input.discovery), "535.161");
    EXPECT_EQ(mismatched_library_version(
                  failed_with({"Failed to initialize NVML: Driver/library version mismatch\nNVML "
                               "library version: 570.133.07 (exit status 18)"})
                      .discovery),
              "570.133.07")
        << "the version ends where its digits and dots do";
    const auto finding = driver_mismatch_finding(input);
    ASSERT_TRUE(finding.has_value());
    EXPECT_EQ(finding->id(), "driver_version_mismatch");
    EXPECT_EQ(finding->severity, model::Severity::error);
    EXPECT_NE(finding->message.find("(NVML library 535.161) and the kernel module running "
                                    "(535.129.03, /proc/driver/nvidia/version)"),
              std::string::npos)
        << finding->message;
}

TEST(DriverMismatch, NvmlsWordAloneIsEnough) {
    const auto finding = driver_mismatch_finding(
        failed_with({"nvmlInit_v2 failed: 18 (RM has detected an NVML/RM version mismatch.)"}));
    ASSERT_TRUE(finding.has_value());
    EXPECT_NE(finding->message.find("The NVIDIA user-space driver and the kernel module running "
                                    "are different versions"),
              std::string::npos)
        << finding->message;
}

TEST(DriverMismatch, OtherFailuresAreNotAMismatch) {
    EXPECT_FALSE(driver_mismatch_finding(
                     failed_with({"nvmlInit_v2 failed: 9 (Driver Not Loaded)",
                                  "'nvidia-smi topo -m' exited with status 6: No devices were "
                                  "found"}))
                     .has_value());
    EXPECT_FALSE(driver_mismatch_finding(DoctorInput{}).has_value());
    EXPECT_EQ(mismatched_library_version(model::Discovery{}), "");
}

}  // namespace
}  // namespace peergate::policy::doctor
