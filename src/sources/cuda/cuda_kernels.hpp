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

// The peer paths' kernels (cuda_peer_ptx.cpp), a module of their own.
// copy_words(u64 dst, u64 src, u64 count): dst[i] = src[i].
inline constexpr const char* kCopyWordsKernel = "peergate_copy_words";
// post(u64 payload, u64 src, u64 count, u64 flag, u32 value): one block; payload, fence, flag.
inline constexpr const char* kHandshakePostKernel = "peergate_handshake_post";
// wait(u64 flag, u64 payload, u64 count, u32 seed, u32 value, u64 budget_ns): one block;
// writes {dropped, wrong, first bad, seen} at flag + 16.
inline constexpr const char* kHandshakeWaitKernel = "peergate_handshake_wait";
inline constexpr unsigned int kHandshakeThreads = 1024;
inline constexpr unsigned int kHandshakeResultOffset = 16;
extern const char* const kPeerPtx;

}  // namespace peergate::sources::cuda
