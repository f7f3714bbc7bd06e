// SPDX-License-Identifier: Apache-2.0
// This process's CPU affinity, read and set (sched_getaffinity/sched_setaffinity). execve
// keeps it, so `exec --bind-cpus` sets it on itself just before it becomes the command.
#pragma once

#include "util/expected.hpp"

#include <vector>

namespace peergate::sources::host {

// The CPUs this process may run on, ascending.
util::Expected<std::vector<int>> allowed_cpus();

// Restricts this process (and what it executes) to `cpus`.
util::Expected<void> bind_to_cpus(const std::vector<int>& cpus);

}  // namespace peergate::sources::host
