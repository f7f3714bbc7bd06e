// SPDX-License-Identifier: Apache-2.0
// The doctor's reading of the capability layers per pair (DoctorInput::pairs): where NVML,
// the CUDA driver and the topology disagree, and which pairs cannot use P2P at all. Pure.
#pragma once

#include "model/finding.hpp"
#include "policy/doctor/doctor.hpp"

#include <string>
#include <utility>
#include <vector>

namespace peergate::policy::doctor {

// The CUDA driver refuses peer access both ways between a and b, so every copy between them
// is staged through host memory, whatever the fabric does. Unknown is not a refusal.
bool peer_access_refused(const std::vector<PairLayers>& pairs, int a, int b);

// One finding per kind, naming the first pair and counting the others:
// p2p_layers_disagree (NVML's P2P read status and cuDeviceCanAccessPeer differ),
// nvlink_status_disagrees (the topology and NVML's NVLink status differ) and
// p2p_not_supported (the CUDA driver refuses peer access; info: nothing for P2P to break)
// p2p_slower_than_staged (warning: a bench result measured P2P below staging) and
// p2p_slower_than_peers (warning: a pair under half the median P2P rate of the pairs with the
// same topology token, where at least four ordered pairs of that token were measured).
std::vector<model::Finding> pair_findings(const std::vector<PairLayers>& pairs);

// For the pairs `risky` (unordered, a < b): how many both NVML (P2P read OK) and the CUDA
// driver (can access peer) vouch for, as a clause for a finding's message; "" when the
// layers were not read for any of them.
std::string capability_claims(const std::vector<PairLayers>& pairs,
                              const std::vector<std::pair<int, int>>& risky);

}  // namespace peergate::policy::doctor
