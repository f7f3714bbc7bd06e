// SPDX-License-Identifier: Apache-2.0
// The Node Feature Discovery feature file for `peergate export nfd` (docs/ecosystem.md §1): one
// `key=value` line per label under peergate.feature.node.kubernetes.io/ (accepted by every
// NFD version, deniable by none), values Kubernetes accepts, an optional expiry directive.
#pragma once

#include "report/exports/facts.hpp"

#include <cstdint>
#include <string>
#include <string_view>

namespace peergate::report::exports {

inline constexpr std::string_view kNfdNamespace = "peergate.feature.node.kubernetes.io/";

std::string export_nfd(const ExportFacts& facts);

// A label value Kubernetes accepts, made as GPU Feature Discovery makes them: characters
// outside [A-Za-z0-9-_. ] dropped, words joined by '-', at most 63 characters, starting and
// ending with a letter or digit ("" when nothing is left).
std::string label_value(std::string_view text);

// RFC 3339 in UTC, as NFD's expiry directive parses it: 2026-11-30T09:00:00Z.
std::string rfc3339_utc(std::int64_t unix_seconds);

}  // namespace peergate::report::exports
