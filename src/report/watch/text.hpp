// SPDX-License-Identifier: Apache-2.0
// watch's report for people: what ran, bytes by GPU pair over NVLink and by GPU over PCIe, a
// verdict per pair, the findings (docs/watch.md "Reading the report").
#pragma once

#include "policy/watch/watch_report.hpp"

#include <string>

namespace peergate::report::watch {

std::string watch_to_text(const policy::watch::WatchReport& report);

}  // namespace peergate::report::watch
