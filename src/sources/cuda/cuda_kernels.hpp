// SPDX-License-Identifier: Apache-2.0
// The probe's two device kernels, shipped as PTX text and loaded with cuModuleLoadData, so
// filling and comparing run at memory speed and only 12 bytes per check cross to the host.
#pragma once

namespace peergate::sources::cuda {

// fill(u64 data, u64 count, u32 seed): data[i] = engine::pattern_value(seed, i).
inline constexpr const char* kFillKernel = "peergate_fill_pattern";
// verify(u64 data, u64 count, u32 seed, u64 result): result[0] += dropped (sentinel),
// result[1] += wrong, result[2] = min(first bad element index); result set to {0, 0, ~0} first.
inline constexpr const char* kVerifyKernel = "peergate_verify_pattern";

inline constexpr unsigned int kThreadsPerBlock = 256;
inline constexpr unsigned int kMaxBlocks = 1024;

// PTX ISA 7.0 (CUDA 11.0) for sm_52 with 64-bit addresses: every driver from the 450
// series on, the 535 series included, JIT-compiles it for its GPU.
extern const char* const kProbePtx;

}  // namespace peergate::sources::cuda
