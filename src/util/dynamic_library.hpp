// SPDX-License-Identifier: Apache-2.0
// A move-only handle on a dlopen'd library (NVML, the CUDA driver, their simulations).
#pragma once

#include "util/expected.hpp"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace peergate::util {

class DynamicLibrary {
public:
    // Opens `path` with RTLD_NOW | RTLD_LOCAL so a missing dependency shows now and
    // no symbol leaks into the global namespace. The error carries dlerror()'s text.
    static Expected<DynamicLibrary> open(const std::string& path);

    // Opens the first of `paths` that loads; the error lists why each one failed.
    static Expected<DynamicLibrary> open_first(const std::vector<std::string>& paths);

    // Address of `name`, or nullptr when the library does not export it.
    void* symbol(const char* name) const;

    // Typed lookup: `auto fn = lib.function<int(int)>("name")`.
    template <typename Fn>
    Fn* function(const char* name) const {
        return reinterpret_cast<Fn*>(symbol(name));  // NOLINT: dlsym's contract
    }

    const std::string& path() const { return path_; }

private:
    struct Closer {
        void operator()(void* handle) const noexcept;
    };

    DynamicLibrary(void* handle, std::string path) : handle_(handle), path_(std::move(path)) {}

    std::unique_ptr<void, Closer> handle_;
    std::string path_;
};

}  // namespace peergate::util
