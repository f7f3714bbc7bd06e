// SPDX-License-Identifier: Apache-2.0
// The simulated driver keeps an allocation that holds one simple thing (zeros, one word,
// the probe's pattern) as a description, and writes bytes out only when an operation needs
// them. What a program reads back must not depend on which form the memory was in: these
// tests read every transition back byte for byte through the driver's own entry points.
#include "engine/pattern.hpp"
#include "sources/cuda/cuda_devices.hpp"
#include "sources/cuda/cuda_handles.hpp"
#include "sources/cuda/cuda_kernels.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <vector>

#ifndef PEERGATE_SIM_CUDA
#error "the loader tier needs the simulated CUDA driver (target peergate_sim_cuda)"
#endif

namespace peergate {
namespace {

namespace cuda = sources::cuda;

constexpr std::size_t kWords = 4096;
constexpr std::size_t kBytes = kWords * 4U;

class SimDeviceMemory : public ::testing::Test {
protected:
    void SetUp() override {
        ::setenv("PEERGATE_SIM_MACHINE",
                 PEERGATE_TEST_FIXTURES "/machines/probe-intact-2x.json",
                 1);  // NOLINT
        auto driver = cuda::open_cuda_driver(PEERGATE_SIM_CUDA, "");
        ASSERT_TRUE(driver.has_value()) << driver.error().message;
        driver_ = *driver;
        auto a = cuda::PrimaryContext::retain(api(), 0);
        auto b = cuda::PrimaryContext::retain(api(), 1);
        ASSERT_TRUE(a && b);
        contexts_.push_back(std::move(*a));
        contexts_.push_back(std::move(*b));
        ASSERT_TRUE(contexts_[0].make_current(api()));
    }

    const cuda::CudaApi& api() const { return driver_->api; }

    CUdeviceptr allocate() {
        auto buffer = cuda::DeviceBuffer::allocate(api(), kBytes);
        EXPECT_TRUE(buffer.has_value());
        buffers_.push_back(std::move(*buffer));
        return buffers_.back().get();
    }

    std::vector<std::uint32_t> read(CUdeviceptr from, std::size_t words = kWords) const {
        std::vector<std::uint32_t> out(words, 0xDEADBEEFU);
        EXPECT_EQ(api().cuMemcpyDtoH_v2(out.data(), from, words * 4U), cuda::CUDA_SUCCESS);
        return out;
    }

    // The probe's kernel over [data, data + 4 count): fill, or verify into result.
    void launch(const char* name,
                CUdeviceptr data,
                std::uint64_t count,
                std::uint32_t seed,
                CUdeviceptr result = 0) const {
        CUmodule module = nullptr;
        ASSERT_EQ(api().cuModuleLoadData(&module, cuda::kProbePtx), cuda::CUDA_SUCCESS);
        CUfunction function = nullptr;
        ASSERT_EQ(api().cuModuleGetFunction(&function, module, name), cuda::CUDA_SUCCESS);
        void* params[] = {&data, &count, &seed, &result};
        EXPECT_EQ(api().cuLaunchKernel(function, 1, 1, 1, 256, 1, 1, 0, nullptr, params, nullptr),
                  cuda::CUDA_SUCCESS);
        api().cuModuleUnload(module);
    }

    // The verify kernel's three words for [data, data + 4 count).
    std::vector<std::uint32_t> verify(CUdeviceptr data, std::uint64_t count, std::uint32_t seed) {
        const CUdeviceptr result = allocate();
        const std::uint32_t start[3] = {0, 0, ~0U};
        EXPECT_EQ(api().cuMemcpyHtoD_v2(result, start, sizeof(start)), cuda::CUDA_SUCCESS);
        launch(cuda::kVerifyKernel, data, count, seed, result);
        return read(result, 3);
    }

    std::shared_ptr<cuda::CudaDriver> driver_;
    std::vector<cuda::PrimaryContext> contexts_;
    std::vector<cuda::DeviceBuffer> buffers_;
};

std::vector<std::uint32_t> pattern(std::uint32_t seed, std::size_t first, std::size_t count) {
    std::vector<std::uint32_t> out;
    for (std::size_t i = first; i < first + count; ++i) {
        out.push_back(engine::pattern_value(seed, static_cast<std::uint32_t>(i)));
    }
    return out;
}

TEST_F(SimDeviceMemory, FreshMemoryReadsAsZerosWholeAndInPart) {
    const CUdeviceptr a = allocate();
    EXPECT_EQ(read(a), std::vector<std::uint32_t>(kWords, 0U));
    EXPECT_EQ(read(a + 40, 3), std::vector<std::uint32_t>(3, 0U));
}

TEST_F(SimDeviceMemory, APartialMemsetLandsOnAWholeOne) {
    const CUdeviceptr a = allocate();
    ASSERT_EQ(api().cuMemsetD32_v2(a, 7U, kWords), cuda::CUDA_SUCCESS);
    ASSERT_EQ(api().cuMemsetD32_v2(a + 8, 9U, 2), cuda::CUDA_SUCCESS);
    const std::uint32_t host[2] = {11U, 12U};
    ASSERT_EQ(api().cuMemcpyHtoD_v2(a + 4 * 100, host, sizeof(host)), cuda::CUDA_SUCCESS);
    std::vector<std::uint32_t> expected(kWords, 7U);
    expected[2] = expected[3] = 9U;
    expected[100] = 11U;
    expected[101] = 12U;
    EXPECT_EQ(read(a), expected);
    EXPECT_EQ(api().cuMemsetD32_v2(a + 2, 1U, 1), cuda::CUDA_ERROR_INVALID_VALUE)
        << "cuMemsetD32 wants a 4-byte aligned address";
}

TEST_F(SimDeviceMemory, AFilledAllocationReadsAsThePatternAnywhere) {
    const CUdeviceptr a = allocate();
    launch(cuda::kFillKernel, a, kWords, 42U);
    EXPECT_EQ(read(a + 4 * 1000, 5), pattern(42U, 1000, 5));
    EXPECT_EQ(read(a), pattern(42U, 0, kWords));
    // Into a host buffer that is not word-aligned.
    std::vector<std::uint8_t> unaligned(4 * 3 + 1);
    ASSERT_EQ(api().cuMemcpyDtoH_v2(unaligned.data() + 1, a + 4 * 9, 12), cuda::CUDA_SUCCESS);
    std::vector<std::uint32_t> words(3);
    std::memcpy(words.data(), unaligned.data() + 1, 12);
    EXPECT_EQ(words, pattern(42U, 9, 3));
    // A fill over part of an allocation counts its elements from where it starts.
    const CUdeviceptr b = allocate();
    launch(cuda::kFillKernel, b + 4 * 10, 20, 5U);
    EXPECT_EQ(read(b + 4 * 10, 20), pattern(5U, 0, 20));
    EXPECT_EQ(read(b, 10), std::vector<std::uint32_t>(10, 0U));
}

TEST_F(SimDeviceMemory, TheVerifyKernelCountsTheSameWhateverFormTheMemoryIsIn) {
    const CUdeviceptr a = allocate();
    launch(cuda::kFillKernel, a, kWords, 3U);
    EXPECT_EQ(verify(a, kWords, 3U), (std::vector<std::uint32_t>{0, 0, ~0U}));
    // Part of it, counted from where the part starts, is not the pattern.
    EXPECT_EQ(verify(a + 4 * 7, 9, 3U), (std::vector<std::uint32_t>{0, 9, 0}));
    ASSERT_EQ(api().cuMemsetD32_v2(a, engine::kSentinelBits, kWords), cuda::CUDA_SUCCESS);
    EXPECT_EQ(verify(a, kWords, 3U), (std::vector<std::uint32_t>{kWords, 0, 0}));
    // The same sentinel, now as bytes with two words changed.
    const std::uint32_t host[2] = {engine::pattern_value(3U, 50), 1U};
    ASSERT_EQ(api().cuMemcpyHtoD_v2(a + 4 * 50, host, sizeof(host)), cuda::CUDA_SUCCESS);
    EXPECT_EQ(verify(a, kWords, 3U), (std::vector<std::uint32_t>{kWords - 2, 1, 0}));
    // Another seed's pattern is wrong at every element.
    launch(cuda::kFillKernel, a, kWords, 4U);
    EXPECT_EQ(verify(a, kWords, 3U), (std::vector<std::uint32_t>{0, kWords, 0}));
    EXPECT_EQ(verify(a + 4 * 7, 9, 3U), (std::vector<std::uint32_t>{0, 9, 0}));
}

TEST_F(SimDeviceMemory, APeerCopyTakesWhatTheSourceHeldThen) {
    const CUdeviceptr a = allocate();
    ASSERT_TRUE(contexts_[1].make_current(api()));
    const CUdeviceptr b = allocate();
    ASSERT_TRUE(contexts_[0].make_current(api()));
    launch(cuda::kFillKernel, a, kWords, 8U);
    ASSERT_EQ(
        api().cuMemcpyPeerAsync(b, contexts_[1].get(), a, contexts_[0].get(), kBytes, nullptr),
        cuda::CUDA_SUCCESS);
    ASSERT_EQ(api().cuMemsetD32_v2(a + 4, 0U, 1), cuda::CUDA_SUCCESS);  // the source changes
    EXPECT_EQ(read(b), pattern(8U, 0, kWords));
    EXPECT_EQ(read(a, 2), (std::vector<std::uint32_t>{engine::pattern_value(8U, 0), 0U}));
    // Part of an allocation onto part of another, from memory in either form.
    ASSERT_EQ(
        api().cuMemcpyPeerAsync(b + 4 * 10, contexts_[1].get(), a, contexts_[0].get(), 8, nullptr),
        cuda::CUDA_SUCCESS);
    EXPECT_EQ(read(b + 4 * 9, 4),
              (std::vector<std::uint32_t>{engine::pattern_value(8U, 9),
                                          engine::pattern_value(8U, 0),
                                          0U,
                                          engine::pattern_value(8U, 12)}));
    const CUdeviceptr c = allocate();
    launch(cuda::kFillKernel, c, kWords, 9U);
    ASSERT_EQ(api().cuMemcpyPeerAsync(
                  a + 4 * 20, contexts_[0].get(), c + 4 * 3, contexts_[0].get(), 8, nullptr),
              cuda::CUDA_SUCCESS);
    EXPECT_EQ(read(a + 4 * 20, 2), pattern(9U, 3, 2));
    EXPECT_EQ(read(a + 4 * 22, 1), pattern(8U, 22, 1));
    // A whole zero-filled host buffer, or a described allocation, onto part of another.
    const std::vector<std::uint32_t> zeros(4, 0U);
    ASSERT_EQ(api().cuMemcpyHtoD_v2(c + 4 * 100, zeros.data(), 16), cuda::CUDA_SUCCESS);
    EXPECT_EQ(read(c + 4 * 99, 6),
              (std::vector<std::uint32_t>{
                  engine::pattern_value(9U, 99), 0, 0, 0, 0, engine::pattern_value(9U, 104)}));
}

TEST_F(SimDeviceMemory, ZerosFromTheHostReplaceWhatWasThere) {
    const CUdeviceptr a = allocate();
    launch(cuda::kFillKernel, a, kWords, 1U);
    const std::vector<std::uint32_t> zeros(kWords, 0U);
    ASSERT_EQ(api().cuMemcpyHtoD_v2(a, zeros.data(), kBytes), cuda::CUDA_SUCCESS);
    EXPECT_EQ(read(a), zeros);
    // A host buffer that already holds what comes down keeps it; one that does not gets it.
    std::vector<std::uint32_t> host(kWords, 5U);
    ASSERT_EQ(api().cuMemcpyDtoH_v2(host.data(), a, kBytes), cuda::CUDA_SUCCESS);
    EXPECT_EQ(host, zeros);
    // Part of an allocation that holds one word everywhere.
    ASSERT_EQ(api().cuMemsetD32_v2(a, 6U, kWords), cuda::CUDA_SUCCESS);
    std::vector<std::uint32_t> part(3, 0U);
    ASSERT_EQ(api().cuMemcpyDtoH_v2(part.data(), a + 4, 12), cuda::CUDA_SUCCESS);
    EXPECT_EQ(part, std::vector<std::uint32_t>(3, 6U));
    // A fill over part of a zero allocation leaves the rest zero.
    const CUdeviceptr d = allocate();
    launch(cuda::kFillKernel, d, 8, 2U);
    EXPECT_EQ(read(d + 4 * 8, 2), std::vector<std::uint32_t>(2, 0U));
}

TEST_F(SimDeviceMemory, KernelsRefuseAddressesThatAreNotWordAligned) {
    const CUdeviceptr a = allocate();
    CUmodule module = nullptr;
    ASSERT_EQ(api().cuModuleLoadData(&module, cuda::kProbePtx), cuda::CUDA_SUCCESS);
    CUfunction fill = nullptr;
    ASSERT_EQ(api().cuModuleGetFunction(&fill, module, cuda::kFillKernel), cuda::CUDA_SUCCESS);
    CUdeviceptr data = a + 2;
    std::uint64_t count = 4;
    std::uint32_t seed = 1;
    void* params[] = {&data, &count, &seed};
    EXPECT_EQ(api().cuLaunchKernel(fill, 1, 1, 1, 256, 1, 1, 0, nullptr, params, nullptr),
              cuda::CUDA_ERROR_MISALIGNED_ADDRESS);
    api().cuModuleUnload(module);
}

}  // namespace
}  // namespace peergate
