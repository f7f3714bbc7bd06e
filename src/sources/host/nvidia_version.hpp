// SPDX-License-Identifier: Apache-2.0
// Which NVIDIA kernel module is running: /proc/driver/nvidia/version's first line names the
// flavour and the version of the loaded nvidia.ko,
//   NVRM version: NVIDIA UNIX x86_64 Kernel Module  515.76  Mon Sep 12 19:21:56 UTC 2022
//   NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  555.58.02  Release Build  (...)
// and the kernel's release, /proc/sys/kernel/osrelease. DMA-BUF, GPUDirect RDMA without a
// peer-memory module, needs the open flavour and Linux 5.12 or later.
#pragma once

#include "model/host_facts.hpp"
#include "sources/host/host_root.hpp"

#include <optional>
#include <string_view>

namespace peergate::sources::host {

// The module a version file names; nullopt when its first line is not an NVRM version line
// with a version number after "Kernel Module".
std::optional<model::NvidiaKernelModule> parse_nvidia_version(std::string_view text);

// /proc/driver/nvidia/version under the root; nullopt when absent or not understood.
std::optional<model::NvidiaKernelModule> read_nvidia_module(const HostRoot& root);

// /proc/sys/kernel/osrelease, trimmed; "" when unreadable.
std::string read_kernel_release(const HostRoot& root);

}  // namespace peergate::sources::host
