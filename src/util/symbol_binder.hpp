// SPDX-License-Identifier: Apache-2.0
// Fills a function table from a dlopen'd library: every required symbol that is missing is
// remembered, so the caller can report all of them in one error (docs/style.md 20).
#pragma once

#include "util/dynamic_library.hpp"

#include <string>
#include <vector>

namespace peergate::util {

class SymbolBinder {
public:
    explicit SymbolBinder(const DynamicLibrary& library) : library_(library) {}

    // Binds `name` into `slot`; a missing symbol is recorded.
    template <typename Fn>
    void required(Fn*& slot, const char* name) {
        slot = library_.function<Fn>(name);
        if (slot == nullptr) {
            missing_.emplace_back(name);
        }
    }

    // Binds `name` into `slot`; nullptr when the library does not export it.
    template <typename Fn>
    void optional(Fn*& slot, const char* name) {
        slot = library_.function<Fn>(name);
    }

    const std::vector<std::string>& missing() const { return missing_; }

private:
    const DynamicLibrary& library_;
    std::vector<std::string> missing_;
};

}  // namespace peergate::util
