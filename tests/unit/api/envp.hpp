// SPDX-License-Identifier: Apache-2.0
// A NULL-terminated "NAME=value" array over owned strings, as the C API takes an environment.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace peergate::test {

struct Envp {
    std::vector<std::string> items;
    std::vector<const char*> pointers;

    explicit Envp(std::vector<std::string> vars) : items(std::move(vars)) {
        for (const auto& item : items) {
            pointers.push_back(item.c_str());
        }
        pointers.push_back(nullptr);
    }
};

}  // namespace peergate::test
