// SPDX-License-Identifier: Apache-2.0
// Whether any CUDA program can start on this node, apart from whether P2P may flow
// (docs/gate-rules.md §2, rule cuda_unavailable): `gate` exits 3 on an unusable node, and
// `exec` and `watch` do not start their command there (issue 52).
#pragma once

#include "policy/gate/types.hpp"

#include <string_view>

namespace peergate::policy::gate {

// The rule that says no CUDA program can start here.
inline constexpr std::string_view kCudaUnavailableRule = "cuda_unavailable";

// Unusable where the CUDA driver library loaded in the identity join's helper and cuInit
// failed (fabric not ready, driver and module versions differ, no device); the reason names
// the call, its status and what to do. Usable otherwise: nothing says a program cannot start.
NodeUsability node_usability(const GateInput& input);

}  // namespace peergate::policy::gate
