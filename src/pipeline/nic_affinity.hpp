// SPDX-License-Identifier: Apache-2.0
// The host's NICs and how far each is from each GPU, from sysfs under the host root (a
// simulated machine's materialised root included).
#pragma once

#include "model/topology.hpp"
#include "pipeline/context.hpp"
#include "policy/placement/nic_affinity.hpp"

namespace peergate::pipeline {

// Every NIC (one per card) and SR-IOV virtual function under the host root, with its class of path
// to each GPU of `topology`; a GPU sysfs does not show has unknown paths.
policy::placement::NicAffinity read_nic_affinity(const Context& ctx,
                                                 const model::Topology& topology);

}  // namespace peergate::pipeline
