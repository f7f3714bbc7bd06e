// SPDX-License-Identifier: Apache-2.0
#include "util/env_map.hpp"

namespace peergate::util {

EnvMap EnvMap::from_envp(const char* const* envp) {
    EnvMap env;
    for (; envp != nullptr && *envp != nullptr; ++envp) {
        const std::string_view entry(*envp);
        const auto eq = entry.find('=');
        if (eq == std::string_view::npos || eq == 0) {
            continue;
        }
        // getenv returns the first match, so the first duplicate is the one in force.
        env.vars_.try_emplace(std::string(entry.substr(0, eq)), std::string(entry.substr(eq + 1)));
    }
    return env;
}

std::optional<std::string> EnvMap::get(std::string_view name) const {
    const auto it = vars_.find(name);
    if (it == vars_.end()) {
        return std::nullopt;
    }
    return it->second;
}

bool EnvMap::contains(std::string_view name) const {
    return vars_.find(name) != vars_.end();
}

bool EnvMap::is_one(std::string_view name) const {
    const auto it = vars_.find(name);
    return it != vars_.end() && it->second == "1";
}

void EnvMap::set(std::string name, std::string value) {
    vars_[std::move(name)] = std::move(value);
}

void EnvMap::unset(std::string_view name) {
    const auto it = vars_.find(name);
    if (it != vars_.end()) {
        vars_.erase(it);
    }
}

std::vector<std::string> EnvMap::to_strings() const {
    std::vector<std::string> out;
    out.reserve(vars_.size());
    for (const auto& [name, value] : vars_) {
        out.push_back(name + "=" + value);
    }
    return out;
}

CStringArray::CStringArray(std::vector<std::string> items) : items_(std::move(items)) {
    pointers_.reserve(items_.size() + 1);
    for (auto& item : items_) {
        pointers_.push_back(item.data());
    }
    pointers_.push_back(nullptr);
}

std::string xdg_cache_dir(const EnvMap& env, std::string_view program) {
    if (auto xdg = env.get("XDG_CACHE_HOME"); xdg && !xdg->empty()) {
        return *xdg + "/" + std::string(program);
    }
    if (auto home = env.get("HOME"); home && !home->empty()) {
        return *home + "/.cache/" + std::string(program);
    }
    return "";
}

}  // namespace peergate::util
