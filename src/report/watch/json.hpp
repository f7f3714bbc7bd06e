// SPDX-License-Identifier: Apache-2.0
// peergate.watch/v1 (docs/contracts.md, docs/watch.md "JSON").
#pragma once

#include "policy/watch/watch_report.hpp"

#include <nlohmann/json.hpp>

namespace peergate::report::watch {

nlohmann::ordered_json watch_to_json(const policy::watch::WatchReport& report);

}  // namespace peergate::report::watch
