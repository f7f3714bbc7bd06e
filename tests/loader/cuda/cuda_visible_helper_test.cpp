// SPDX-License-Identifier: Apache-2.0
// The identity join's helper side (`peergate cuda-visible`, pipeline::list_cuda_visible)
// against the simulated driver, told its machine by the seams as the command and the C API
// tell it: what it lists, and the coded report of a driver that does not initialise.
#include "pipeline/identity_join.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

namespace peergate {
namespace {

util::Seams seams_simulating(const std::string& machine) {
    util::Seams seams;
    seams.cuda_library = PEERGATE_SIM_CUDA;
    seams.simulated_machine = machine;
    return seams;
}

TEST(CudaVisibleHelper, ListsTheBusIdsOfTheMachineTheSeamsName) {
    ::unsetenv("PEERGATE_SIM_MACHINE");  // NOLINT(concurrency-mt-unsafe): as a C API caller
    const auto answer = pipeline::list_cuda_visible(
        seams_simulating(PEERGATE_SOURCE_DIR "/machines/dgx1-v100.json"));
    ASSERT_FALSE(answer.error.has_value()) << answer.error->message;
    const auto listed = pipeline::parse_cuda_visible(answer.out);
    ASSERT_TRUE(listed.has_value()) << answer.out;
    EXPECT_EQ(listed->size(), 8U) << answer.out;
}

// The CUresult and the driver's words travel as they came from the driver: the words are
// never cut out of a longer sentence.
TEST(CudaVisibleHelper, ADriverThatDoesNotInitialiseIsReportedWithItsStatus) {
    ::unsetenv("PEERGATE_SIM_MACHINE");  // NOLINT(concurrency-mt-unsafe)
    const auto answer = pipeline::list_cuda_visible(
        seams_simulating(PEERGATE_TEST_FIXTURES "/machines/probe-init-fail-2x.json"));
    ASSERT_TRUE(answer.error.has_value());
    EXPECT_EQ(answer.error->vendor_status, 100);
    EXPECT_EQ(answer.out, "cuda-init-failed 100 cuInit failed: 100 CUDA_ERROR_NO_DEVICE\n");
    const auto failure = pipeline::parse_cuda_init_failure(answer.out);
    ASSERT_TRUE(failure.has_value());
    EXPECT_EQ(failure->status, 100);
    EXPECT_EQ(failure->detail, "cuInit failed: 100 CUDA_ERROR_NO_DEVICE");
}

TEST(CudaVisibleHelper, ADriverThatDoesNotLoadReportsNoStatus) {
    util::Seams seams;
    seams.cuda_library = "/nonexistent/libcuda.so.1";
    const auto answer = pipeline::list_cuda_visible(seams);
    ASSERT_TRUE(answer.error.has_value());
    EXPECT_EQ(answer.error->vendor_status, 0);
    EXPECT_EQ(answer.out, "");
}

}  // namespace
}  // namespace peergate
