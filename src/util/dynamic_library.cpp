// SPDX-License-Identifier: Apache-2.0
#include "util/dynamic_library.hpp"

#include <dlfcn.h>

namespace peergate::util {

void DynamicLibrary::Closer::operator()(void* handle) const noexcept {
    if (handle != nullptr) {
        dlclose(handle);
    }
}

Expected<DynamicLibrary> DynamicLibrary::open(const std::string& path) {
    dlerror();
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
        const char* why = dlerror();
        return unexpected(ErrorCode::not_found,
                          "cannot load " + path + ": " + (why != nullptr ? why : "unknown error"));
    }
    return DynamicLibrary(handle, path);
}

Expected<DynamicLibrary> DynamicLibrary::open_first(const std::vector<std::string>& paths) {
    std::string reasons;
    for (const auto& path : paths) {
        auto lib = open(path);
        if (lib) {
            return lib;
        }
        reasons += (reasons.empty() ? "" : "; ") + lib.error().message;
    }
    return unexpected(ErrorCode::not_found, reasons.empty() ? "no library named" : reasons);
}

void* DynamicLibrary::symbol(const char* name) const {
    dlerror();  // clear a stale error so a NULL-valued symbol is not mistaken
    return dlsym(handle_.get(), name);
}

}  // namespace peergate::util
