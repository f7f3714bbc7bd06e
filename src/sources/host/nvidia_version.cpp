// SPDX-License-Identifier: Apache-2.0
#include "sources/host/nvidia_version.hpp"

#include "util/strings.hpp"

#include <algorithm>
#include <cctype>

namespace peergate::sources::host {

namespace {

bool is_version(std::string_view token) {
    return !token.empty() && std::isdigit(static_cast<unsigned char>(token.front())) != 0 &&
           std::all_of(token.begin(), token.end(), [](char c) {
               return std::isdigit(static_cast<unsigned char>(c)) != 0 || c == '.';
           });
}

}  // namespace

std::optional<model::NvidiaKernelModule> parse_nvidia_version(std::string_view text) {
    const auto lines = util::split_lines(text);
    if (lines.empty() || !lines.front().starts_with("NVRM version:")) {
        return std::nullopt;
    }
    const auto tokens = util::split_whitespace(lines.front());
    const auto module = std::find(tokens.begin(), tokens.end(), "Module");
    if (module == tokens.end() || module == tokens.begin() || *(module - 1) != "Kernel") {
        return std::nullopt;
    }
    // The open flavour says "Open Kernel Module for <arch>", the proprietary one
    // "<arch> Kernel Module": the version is the first number after "Module" either way.
    const auto version = std::find_if(module + 1, tokens.end(), is_version);
    if (version == tokens.end()) {
        return std::nullopt;
    }
    const bool open = module - tokens.begin() >= 2 && *(module - 2) == "Open";
    return model::NvidiaKernelModule{.flavour = open ? model::KernelModuleFlavour::open
                                                     : model::KernelModuleFlavour::proprietary,
                                     .version = std::string(*version)};
}

std::optional<model::NvidiaKernelModule> read_nvidia_module(const HostRoot& root) {
    const auto text = root.read_text("/proc/driver/nvidia/version");
    return text ? parse_nvidia_version(*text) : std::nullopt;
}

std::string read_kernel_release(const HostRoot& root) {
    const auto text = root.read_text("/proc/sys/kernel/osrelease");
    return text ? std::string(util::trim(*text)) : std::string();
}

}  // namespace peergate::sources::host
