// SPDX-License-Identifier: Apache-2.0
#include "pipeline/context.hpp"

#include <fmt/format.h>

namespace peergate::pipeline {

void print_error(const Output& output, const std::string& message) {
    fmt::print(output.err, "peergate: {}\n", message);
}

}  // namespace peergate::pipeline
