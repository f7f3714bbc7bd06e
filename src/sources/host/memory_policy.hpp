// SPDX-License-Identifier: Apache-2.0
// This process's NUMA memory policy, read and set (get_mempolicy/set_mempolicy, called
// through syscall(2): no libnuma). execve keeps the policy, so `exec --bind-memory` sets it
// on itself just before it becomes the command, as `numactl --membind` does.
#pragma once

#include "util/expected.hpp"

#include <vector>

namespace peergate::sources::host {

// The NUMA nodes this process may allocate from (its cpuset's mems), ascending. An error
// where the kernel has no NUMA support.
util::Expected<std::vector<int>> allowed_memory_nodes();

// Allocations of this process (and what it executes) come only from `nodes` (MPOL_BIND).
util::Expected<void> bind_memory_to_nodes(const std::vector<int>& nodes);

// This process's memory policy as a word for logs and tests: "default", "bind", ...
util::Expected<const char*> memory_policy_mode();

}  // namespace peergate::sources::host
