// SPDX-License-Identifier: Apache-2.0
// The verdict cache document (peergate.probe_cache/v1): the probe result with the machine
// identity it was measured on. Pure; the file I/O is in pipeline/probe_cache_io, what the
// gate concludes from it in policy/gate/probe_cache.
#pragma once

#include "model/probe_cache_entry.hpp"

#include <optional>
#include <string>

namespace peergate::report::probe {

std::string probe_cache_to_text(const model::ProbeCacheEntry& entry);

// nullopt with the reason in `error` when the text is not a cache document.
std::optional<model::ProbeCacheEntry> probe_cache_from_text(const std::string& text,
                                                            std::string* error);

}  // namespace peergate::report::probe
