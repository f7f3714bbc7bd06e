// SPDX-License-Identifier: Apache-2.0
// NVLinks that are down. A capability query cannot show it (the pair is still NVLink, only
// slower), yet every collective through that GPU runs at the fraction of links still up, and
// on an NVSwitch baseboard a link down is a fault (Xid 74), not a choice. Pure.
#pragma once

#include "model/finding.hpp"
#include "policy/doctor/doctor.hpp"

#include <vector>

namespace peergate::policy::doctor {

// One `nvlink_down` finding per GPU with links down while most GPUs of its model have more
// up: an error where the model's GPUs reach NVSwitches (its links are on the baseboard), a
// warning where the links are direct (bridges, which a card may carry fewer of by design).
// A GPU with none up is named only on an NVSwitch fabric: beside bridged cards, an unbridged
// one is a choice.
std::vector<model::Finding> nvlink_down_findings(const std::vector<GpuLinks>& links);

}  // namespace peergate::policy::doctor
