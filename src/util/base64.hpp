// SPDX-License-Identifier: Apache-2.0
// Standard base64 (RFC 4648, with padding): carries arbitrary bytes inside a JSON string
// without the escapes that would make its length unpredictable.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace peergate::util {

std::string base64_encode(std::string_view bytes);

// nullopt on a character outside the alphabet, a length that is not a multiple of 4, or
// misplaced padding.
std::optional<std::string> base64_decode(std::string_view text);

}  // namespace peergate::util
