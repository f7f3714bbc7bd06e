// SPDX-License-Identifier: Apache-2.0
// The CUDA function table, handles and copy engine through the real dlopen path, against
// the simulated driver on one machine (fault scenarios run end to end, one process each:
// the driver, real or simulated, reads its machine once per process).
#include "engine/probe_runner.hpp"
#include "engine/probe_verdict.hpp"
#include "sources/cuda/cuda_copy_engine.hpp"
#include "sources/cuda/cuda_devices.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

#ifndef PEERGATE_SIM_CUDA
#error "the loader tier needs the simulated CUDA driver (target peergate_sim_cuda)"
#endif

namespace peergate {
namespace {

namespace cuda = sources::cuda;

std::shared_ptr<cuda::CudaDriver> open_sim() {
    ::setenv("PEERGATE_SIM_MACHINE",
             PEERGATE_TEST_FIXTURES "/machines/probe-intact-2x.json",
             1);  // NOLINT
    auto driver = cuda::open_cuda_driver(PEERGATE_SIM_CUDA, "");
    EXPECT_TRUE(driver.has_value()) << driver.error().message;
    return driver ? *driver : nullptr;
}

TEST(CudaApi, BindsEveryVersionedEntryPointFromTheSimulatedDriver) {
    auto library = util::DynamicLibrary::open(PEERGATE_SIM_CUDA);
    ASSERT_TRUE(library.has_value());
    auto api = cuda::load_cuda_api(*library);
    ASSERT_TRUE(api.has_value()) << api.error().message;
    EXPECT_NE(api->cuMemAlloc_v2, nullptr);
    EXPECT_NE(api->cuDevicePrimaryCtxRelease_v2, nullptr);
    EXPECT_TRUE(api->has_kernels());
    // The bound pointer is the _v2 export, not the legacy plain name.
    EXPECT_EQ(reinterpret_cast<void*>(api->cuMemAlloc_v2), library->symbol("cuMemAlloc_v2"));
    EXPECT_EQ(library->symbol("cuMemAlloc"), nullptr);
}

TEST(CudaApi, ALibraryWithoutTheEntryPointsNamesWhatIsMissing) {
    auto library = util::DynamicLibrary::open("libm.so.6");
    ASSERT_TRUE(library.has_value());
    auto api = cuda::load_cuda_api(*library);
    ASSERT_FALSE(api.has_value());
    EXPECT_NE(api.error().message.find("cuMemAlloc_v2"), std::string::npos);
    EXPECT_NE(api.error().message.find("cuMemcpyPeerAsync"), std::string::npos);
}

TEST(CudaApi, AMissingLibraryIsUnavailableNotACrash) {
    auto driver = cuda::open_cuda_driver("/nonexistent/libcuda.so.1", "");
    ASSERT_FALSE(driver.has_value());
    EXPECT_EQ(driver.error().code, util::ErrorCode::unavailable);
    EXPECT_NE(driver.error().message.find("no CUDA driver"), std::string::npos);
}

// A program that loaded the simulated driver without PEERGATE_SIM_MACHINE in its environment
// (libpeergate.so's callers: python3, a launcher) names the machine when it opens it, and may
// name another later; opened for none, it reads the variable.
TEST(CudaApi, TheSimulatedDriverAnswersForTheMachineItIsTold) {
    ::unsetenv("PEERGATE_SIM_MACHINE");  // NOLINT(concurrency-mt-unsafe)
    const auto count_on = [](const std::string& machine) -> std::size_t {
        auto driver = cuda::open_cuda_driver(PEERGATE_SIM_CUDA, machine);
        if (!driver) {
            ADD_FAILURE() << machine << ": " << driver.error().message;
            return 0;
        }
        auto devices = cuda::enumerate_devices((*driver)->api);
        return devices ? devices->size() : 0;
    };
    EXPECT_EQ(count_on(PEERGATE_TEST_FIXTURES "/machines/probe-intact-2x.json"), 2U);
    EXPECT_EQ(count_on(PEERGATE_SOURCE_DIR "/machines/hgx-b200-8x.json"), 8U);
    EXPECT_EQ(count_on(PEERGATE_TEST_FIXTURES "/machines/probe-intact-2x.json"), 2U);
    // Opened for no named machine, it reads the variable again, not the last one named.
    ::setenv("PEERGATE_SIM_MACHINE", PEERGATE_SOURCE_DIR "/machines/dgx1-v100.json", 1);  // NOLINT
    EXPECT_EQ(count_on(""), 8U);
}

TEST(CudaApi, ErrorsCarryTheCallTheCodeAndTheDriversName) {
    auto driver = open_sim();
    ASSERT_TRUE(driver);
    auto error = cuda::check(driver->api, cuda::CUDA_ERROR_OUT_OF_MEMORY, "cuMemAlloc_v2");
    ASSERT_FALSE(error.has_value());
    EXPECT_EQ(error.error().message, "cuMemAlloc_v2 failed: 2 CUDA_ERROR_OUT_OF_MEMORY");
    EXPECT_EQ(error.error().vendor_status, 2) << "the CUresult, for callers that act on it";
}

TEST(CudaDevices, ListsDevicesWithParsedBusIds) {
    auto driver = open_sim();
    ASSERT_TRUE(driver);
    EXPECT_EQ(driver->driver_version, 12080);
    auto devices = cuda::enumerate_devices(driver->api);
    ASSERT_TRUE(devices.has_value());
    ASSERT_EQ(devices->size(), 2U);
    EXPECT_EQ((*devices)[1].name, "NVIDIA RTX 6000 Ada Generation");
    ASSERT_TRUE((*devices)[1].pci.has_value());
    EXPECT_EQ((*devices)[1].pci->to_nvml(), "00000000:3B:00.0");
    EXPECT_TRUE(cuda::can_access_peer(driver->api, 0, 1));
}

TEST(CudaHandles, PeerAccessAlreadyEnabledIsSuccess) {
    auto driver = open_sim();
    ASSERT_TRUE(driver);
    const auto& api = driver->api;
    auto a = cuda::PrimaryContext::retain(api, 0);
    auto b = cuda::PrimaryContext::retain(api, 1);
    ASSERT_TRUE(a && b);
    EXPECT_TRUE(cuda::enable_peer_access(api, *a, *b).has_value());
    EXPECT_TRUE(cuda::enable_peer_access(api, *a, *b).has_value());  // 704 the second time
}

TEST(CudaHandles, DevicePointersAreNotHostAddresses) {
    auto driver = open_sim();
    ASSERT_TRUE(driver);
    const auto& api = driver->api;
    auto context = cuda::PrimaryContext::retain(api, 0);
    ASSERT_TRUE(context && context->make_current(api));
    auto buffer = cuda::DeviceBuffer::allocate(api, 4096);
    ASSERT_TRUE(buffer.has_value());
    int host = 0;
    // A host address used as a device pointer is refused, as a real driver would fault.
    EXPECT_EQ(api.cuMemcpyDtoH_v2(&host, reinterpret_cast<CUdeviceptr>(&host), 4),
              cuda::CUDA_ERROR_INVALID_VALUE);
    // Reading past the end of an allocation is refused too.
    EXPECT_EQ(api.cuMemcpyDtoH_v2(&host, buffer->get() + 4096, 4), cuda::CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api.cuMemcpyDtoH_v2(&host, buffer->get() + 4092, 4), cuda::CUDA_SUCCESS);
}

engine::ProbePlan two_gpu_plan() {
    engine::ProbeRequest request;
    request.gpus = {0, 1};
    request.sizes_mib = {1};
    request.repeats = 2;
    request.modes = {model::ProbeMode::serial, model::ProbeMode::concurrent};
    return *engine::make_probe_plan(request);
}

TEST(CudaCopyEngine, DeviceVerificationPassesAnIntactMachineMovingTwelveBytesPerCheck) {
    auto driver = open_sim();
    ASSERT_TRUE(driver);
    auto engine = cuda::CudaCopyEngine::open(
        driver, {.ordinals = {0, 1}, .verify = model::VerifySite::device});
    ASSERT_TRUE(engine.has_value()) << engine.error().message;
    EXPECT_EQ((*engine)->verify_site(), model::VerifySite::device);
    EXPECT_TRUE((*engine)->verify_note().empty());
    EXPECT_EQ((*engine)->path(0, 1), model::CopyPath::direct);
    const auto plan = two_gpu_plan();
    const auto result = engine::judge_probe(plan, engine::run_probe(**engine, plan).cells);
    EXPECT_EQ(result.outcome, model::ProbeOutcome::pass) << result.reason;
    for (const auto& cell : result.cells) {
        EXPECT_EQ(cell.status, model::CellStatus::ok);
        EXPECT_EQ(cell.verify, model::VerifySite::device);
        ASSERT_TRUE(cell.gbps.has_value());
        EXPECT_GT(*cell.gbps, 1.0);
    }
    const auto counters = (*engine)->counters();
    EXPECT_EQ(counters.host_bytes_in, 12U * 2U * 4U);  // 4 cells x 2 repeats x 12 bytes
    EXPECT_EQ(counters.host_bytes_out, 0U);
}

TEST(CudaCopyEngine, HostVerificationCopiesTheBytesBack) {
    auto driver = open_sim();
    ASSERT_TRUE(driver);
    auto engine =
        cuda::CudaCopyEngine::open(driver, {.ordinals = {1, 0}, .verify = model::VerifySite::host});
    ASSERT_TRUE(engine.has_value());
    const auto plan = two_gpu_plan();
    const auto result = engine::judge_probe(plan, engine::run_probe(**engine, plan).cells);
    EXPECT_EQ(result.outcome, model::ProbeOutcome::pass) << result.reason;
    EXPECT_EQ((*engine)->counters().host_bytes_in, (1U << 20U) * 2U * 4U);
}

}  // namespace
}  // namespace peergate
