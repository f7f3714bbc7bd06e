// SPDX-License-Identifier: Apache-2.0
#include "pipeline/module_location.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <system_error>

namespace peergate::pipeline {

namespace fs = std::filesystem;

fs::path module_dir() {
    static const char anchor = 0;
    Dl_info info{};
    std::error_code ec;
    if (::dladdr(&anchor, &info) != 0 && info.dli_fname != nullptr) {
        const std::string module = info.dli_fname;
        if (module.ends_with(".so") || module.find(".so.") != std::string::npos) {
            return fs::absolute(module, ec).parent_path();
        }
    }
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    return ec ? fs::current_path() : exe.parent_path();
}

std::string installed_peergate() {
    const fs::path program = module_dir().parent_path() / "bin" / "peergate";
    std::error_code ec;
    if (!fs::is_regular_file(program, ec) || ::access(program.c_str(), X_OK) != 0) {
        return "";
    }
    return program.string();
}

}  // namespace peergate::pipeline
