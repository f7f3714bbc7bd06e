// SPDX-License-Identifier: Apache-2.0
#include "pipeline/module_location.hpp"

#include "peergate/install_layout.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <system_error>
#include <utility>
#include <vector>

namespace peergate::pipeline {

namespace fs = std::filesystem;

namespace {

// The file of the module this code is in, and whether it is a shared library.
std::pair<fs::path, bool> this_module() {
    static const char anchor = 0;
    Dl_info info{};
    std::error_code ec;
    if (::dladdr(&anchor, &info) != 0 && info.dli_fname != nullptr) {
        const std::string module = info.dli_fname;
        if (module.ends_with(".so") || module.find(".so.") != std::string::npos) {
            return {fs::absolute(module, ec), true};
        }
    }
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    return {ec ? fs::current_path() / "peergate" : exe, false};
}

}  // namespace

fs::path module_dir() {
    return this_module().first.parent_path();
}

fs::path prefix_of(const fs::path& dir, std::string_view relative_dir) {
    fs::path prefix = dir.lexically_normal();
    if (!prefix.empty() && !prefix.has_filename()) {
        prefix = prefix.parent_path();  // "/usr/lib/" -> "/usr/lib"
    }
    const fs::path relative = fs::path(relative_dir).lexically_normal();
    std::vector<fs::path> parts(relative.begin(), relative.end());
    for (auto part = parts.rbegin(); part != parts.rend(); ++part) {
        if (part->empty() || prefix.filename() != *part) {
            return dir.parent_path();
        }
        prefix = prefix.parent_path();
    }
    return prefix;
}

fs::path install_prefix() {
    const auto [module, is_library] = this_module();
    return prefix_of(module.parent_path(), is_library ? install::kLibDir : install::kBinDir);
}

std::string installed_peergate() {
    const fs::path program = install_prefix() / install::kBinDir / "peergate";
    std::error_code ec;
    if (!fs::is_regular_file(program, ec) || ::access(program.c_str(), X_OK) != 0) {
        return "";
    }
    return program.string();
}

}  // namespace peergate::pipeline
