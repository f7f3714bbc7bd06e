// SPDX-License-Identifier: Apache-2.0
#include "sources/host/memory_policy.hpp"

#include <linux/mempolicy.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <string>

namespace peergate::sources::host {

namespace {

// Nodes the masks can name; the kernel's own limit (CONFIG_NODES_SHIFT) is at most 1024.
constexpr int kMaxNodes = 1024;
constexpr int kWordBits = static_cast<int>(sizeof(unsigned long) * CHAR_BIT);

using NodeMask = std::vector<unsigned long>;

NodeMask empty_mask() {
    return NodeMask(static_cast<std::size_t>(kMaxNodes / kWordBits), 0UL);
}

// The kernel reads one bit fewer than `maxnode` says (numactl passes size + 1 for this).
unsigned long mask_maxnode() {
    return static_cast<unsigned long>(kMaxNodes) + 1;
}

util::Unexpected failed(const char* call) {
    return util::unexpected(util::ErrorCode::unavailable,
                            std::string(call) + ": " + std::strerror(errno));
}

}  // namespace

util::Expected<std::vector<int>> allowed_memory_nodes() {
    NodeMask mask = empty_mask();
    int mode = 0;
    if (::syscall(SYS_get_mempolicy,
                  &mode,
                  mask.data(),
                  mask_maxnode(),
                  nullptr,
                  static_cast<unsigned long>(MPOL_F_MEMS_ALLOWED)) != 0) {
        return failed("get_mempolicy");
    }
    std::vector<int> nodes;
    for (int node = 0; node < kMaxNodes; ++node) {
        if ((mask[static_cast<std::size_t>(node / kWordBits)] >> (node % kWordBits)) & 1UL) {
            nodes.push_back(node);
        }
    }
    return nodes;
}

util::Expected<void> bind_memory_to_nodes(const std::vector<int>& nodes) {
    if (nodes.empty()) {
        return util::unexpected(util::ErrorCode::invalid_input, "no NUMA node to bind to");
    }
    NodeMask mask = empty_mask();
    for (int node : nodes) {
        if (node < 0 || node >= kMaxNodes) {
            return util::unexpected(util::ErrorCode::invalid_input,
                                    "NUMA node " + std::to_string(node) + " is out of range");
        }
        mask[static_cast<std::size_t>(node / kWordBits)] |= 1UL << (node % kWordBits);
    }
    if (::syscall(SYS_set_mempolicy, MPOL_BIND, mask.data(), mask_maxnode()) != 0) {
        return failed("set_mempolicy");
    }
    return {};
}

util::Expected<const char*> memory_policy_mode() {
    int mode = 0;
    if (::syscall(SYS_get_mempolicy, &mode, nullptr, 0UL, nullptr, 0UL) != 0) {
        return failed("get_mempolicy");
    }
    switch (mode & ~MPOL_MODE_FLAGS) {
        case MPOL_DEFAULT:
            return "default";
        case MPOL_PREFERRED:
            return "preferred";
        case MPOL_BIND:
            return "bind";
        case MPOL_INTERLEAVE:
            return "interleave";
        default:
            return "other";
    }
}

}  // namespace peergate::sources::host
