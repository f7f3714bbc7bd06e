// SPDX-License-Identifier: Apache-2.0
// The few CUDA driver API types, codes and flags peergate uses, so the build needs no
// CUDA toolkit. Values checked against cuda.h of CUDA 13.0 (lines 274-292 for the
// handle types, 2520-3180 for CUresult, 428 and 456 for the stream and event flags).
#pragma once

#include <cstddef>

// NOLINTBEGIN(readability-identifier-naming): vendor names keep the vendor's spelling.
extern "C" {

using CUresult = int;
using CUdevice = int;                    // CUdevice_v1
using CUdeviceptr = unsigned long long;  // CUdeviceptr_v2: 64-bit on every 64-bit host
using CUcontext = struct CUctx_st*;
using CUmodule = struct CUmod_st*;
using CUfunction = struct CUfunc_st*;
using CUstream = struct CUstream_st*;
using CUevent = struct CUevent_st*;

}  // extern "C"

namespace peergate::sources::cuda {

inline constexpr CUresult CUDA_SUCCESS = 0;
inline constexpr CUresult CUDA_ERROR_INVALID_VALUE = 1;
inline constexpr CUresult CUDA_ERROR_OUT_OF_MEMORY = 2;
inline constexpr CUresult CUDA_ERROR_NOT_INITIALIZED = 3;
inline constexpr CUresult CUDA_ERROR_NO_DEVICE = 100;
inline constexpr CUresult CUDA_ERROR_INVALID_DEVICE = 101;
inline constexpr CUresult CUDA_ERROR_INVALID_CONTEXT = 201;
inline constexpr CUresult CUDA_ERROR_NO_BINARY_FOR_GPU = 209;
inline constexpr CUresult CUDA_ERROR_PEER_ACCESS_UNSUPPORTED = 217;
inline constexpr CUresult CUDA_ERROR_INVALID_PTX = 218;
inline constexpr CUresult CUDA_ERROR_UNSUPPORTED_PTX_VERSION = 222;
inline constexpr CUresult CUDA_ERROR_INVALID_HANDLE = 400;
inline constexpr CUresult CUDA_ERROR_NOT_FOUND = 500;
inline constexpr CUresult CUDA_ERROR_NOT_READY = 600;  // cuStreamQuery/cuEventQuery: still running
inline constexpr CUresult CUDA_ERROR_ILLEGAL_ADDRESS = 700;
inline constexpr CUresult CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED = 704;  // success for us
inline constexpr CUresult CUDA_ERROR_MISALIGNED_ADDRESS = 716;
inline constexpr CUresult CUDA_ERROR_NOT_SUPPORTED = 801;
// cuInit on an NVSwitch system whose fabric manager has not registered the GPUs.
inline constexpr CUresult CUDA_ERROR_SYSTEM_NOT_READY = 802;
inline constexpr CUresult CUDA_ERROR_SYSTEM_DRIVER_MISMATCH = 803;
inline constexpr CUresult CUDA_ERROR_UNKNOWN = 999;

inline constexpr unsigned int CU_STREAM_DEFAULT = 0x0;
inline constexpr unsigned int CU_STREAM_NON_BLOCKING = 0x1;
inline constexpr unsigned int CU_EVENT_DEFAULT = 0x0;
inline constexpr unsigned int CU_EVENT_DISABLE_TIMING = 0x2;

// CUdevice_attribute: "Device supports buffer sharing with dma_buf mechanism" (CUDA 11.7+;
// an older driver answers CUDA_ERROR_INVALID_VALUE). NCCL asks it before using DMA-BUF.
inline constexpr int CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED = 124;

}  // namespace peergate::sources::cuda

// NOLINTEND(readability-identifier-naming)
