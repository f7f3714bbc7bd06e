// SPDX-License-Identifier: Apache-2.0
// The simulated driver's peer-path kernels (sources/cuda/cuda_peer_ptx.cpp run as C++): a
// word copy through the peer mapping, and the handshake's writer and resident waiter, with
// the machine file's "sm" and "flag" faults (docs/machine-file.md).
#pragma once

#include "sim/cuda/sim_cuda_state.hpp"

#include <string_view>

namespace peergate::sim::cuda {

inline constexpr std::string_view kCopyWords = "peergate_copy_words";
inline constexpr std::string_view kHandshakePost = "peergate_handshake_post";
inline constexpr std::string_view kHandshakeWait = "peergate_handshake_wait";

bool is_peer_kernel(std::string_view name);

// Checks a launch of one of them and queues its work on `stream` (caller holds the lock).
CUresult launch_peer_kernel(
    State& s, const CUfunc_st& function, CUstream stream, unsigned int blocks, void** params);

}  // namespace peergate::sim::cuda
