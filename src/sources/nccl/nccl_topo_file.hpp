// SPDX-License-Identifier: Apache-2.0
// The NCCL topology file a job will read, found the way NCCL finds it (src/misc/param.cc,
// src/graph/topo.cc): NCCL_TOPO_FILE in the environment; else the value the configuration
// files give it (NCCL_CONF_FILE, or ~/.nccl.conf, then /etc/nccl.conf: NCCL sets a variable
// from them only where the environment has none, so the first file to set it wins); else
// /var/run/nvidia-topologyd/virtualTopology.xml when it exists. Cloud images name their file
// in /etc/nccl.conf, so every job on the node reads it.
#pragma once

#include "model/nccl_topo_file.hpp"
#include "util/env_map.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace peergate::sources::nccl {

// The value a configuration file gives `name`, read as NCCL reads it: NAME=VALUE lines, the
// first that sets the name wins, a line starting with '#' is a comment, nothing is trimmed
// but the line break.
std::optional<std::string> nccl_conf_value(std::string_view text, std::string_view name);

// The file and what it claims; nullopt when NCCL will read none. Paths from the environment
// and the user's configuration file are read as given; /etc/nccl.conf, the path it names and
// NCCL's default path under `host_root`.
std::optional<model::NcclTopoFile> read_nccl_topo_file(const util::EnvMap& env,
                                                       const std::string& host_root);

}  // namespace peergate::sources::nccl
