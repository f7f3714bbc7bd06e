// SPDX-License-Identifier: Apache-2.0
// This host's name, as gethostname(2) gives it. Read here rather than under the host root:
// it names the machine peergate runs on (a fleet record, a cache file), which a replayed
// host root does not change.
#pragma once

#include <string>

namespace peergate::sources::host {

// The full name; "localhost" when gethostname fails.
std::string host_name();

// The name up to its first dot, as Slurm and Kubernetes name nodes.
std::string short_host_name();

}  // namespace peergate::sources::host
