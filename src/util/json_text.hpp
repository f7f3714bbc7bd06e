// SPDX-License-Identifier: Apache-2.0
// Serialises a document for output. Text read from the host (kernel log lines, GPU names,
// recorded tool output) may hold bytes that are not UTF-8; nlohmann's default would throw
// on them, so invalid sequences are replaced with U+FFFD instead.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace peergate::util {

inline std::string json_text(const nlohmann::ordered_json& doc) {
    return doc.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

}  // namespace peergate::util
