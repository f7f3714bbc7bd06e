// SPDX-License-Identifier: Apache-2.0
// The environment as a value. Built once from main's envp; library code reads this,
// never getenv, and a child gets an explicit envp made from it.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace peergate::util {

class EnvMap {
public:
    EnvMap() = default;

    // Reads a NULL-terminated "NAME=value" array such as main's envp. Entries without
    // '=' (or with an empty name) are ignored. When a name appears twice the first one
    // is kept, because that is the one glibc's getenv returns.
    static EnvMap from_envp(const char* const* envp);

    // Value of `name`, or nullopt when it is not set (set-but-empty is "").
    std::optional<std::string> get(std::string_view name) const;

    bool contains(std::string_view name) const;

    // True only when `name` is set to exactly "1" (the control-plane convention).
    bool is_one(std::string_view name) const;

    void set(std::string name, std::string value);
    void unset(std::string_view name);

    // "NAME=value" strings in name order, for execve/posix_spawn.
    std::vector<std::string> to_strings() const;

    const std::map<std::string, std::string, std::less<>>& entries() const { return vars_; }

    friend bool operator==(const EnvMap&, const EnvMap&) = default;

private:
    std::map<std::string, std::string, std::less<>> vars_;
};

// A program's cache directory as the XDG base-directory convention puts it under `env`:
// $XDG_CACHE_HOME/<program>, else $HOME/.cache/<program>; "" when neither is set.
std::string xdg_cache_dir(const EnvMap& env, std::string_view program);

// Owns the strings behind a NULL-terminated char* array for execve.
class CStringArray {
public:
    explicit CStringArray(std::vector<std::string> items);

    char* const* data() { return pointers_.data(); }

private:
    std::vector<std::string> items_;
    std::vector<char*> pointers_;
};

}  // namespace peergate::util
