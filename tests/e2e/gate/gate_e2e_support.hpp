// SPDX-License-Identifier: Apache-2.0
// Runs the built peergate binary with an explicit environment and reads what it printed.
#pragma once

#include "util/strings.hpp"
#include "util/subprocess.hpp"

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

namespace peergate::e2e {

inline const std::string kScripts = PEERGATE_TEST_SCRIPTS;
inline const std::string kFixtures = PEERGATE_TEST_FIXTURES;

// A small, fixed parent environment so that the child's environment can be compared exactly.
inline util::EnvMap base_env() {
    util::EnvMap env;
    env.set("PATH", "/usr/local/bin:/usr/bin:/bin");
    env.set("HOME", "/nonexistent-home");
    env.set("LANG", "C");
    // On a developer's GPU host the real driver would answer otherwise: a test names the
    // libraries it means (flags and --simulate beat these).
    env.set("PEERGATE_NVML_LIB", "/nonexistent/libnvidia-ml.so.1");
    env.set("PEERGATE_CUDA_LIB", "/nonexistent/libcuda.so.1");
    // No verdict cache a test did not ask for: as root the default is /var/cache/peergate,
    // shared by every test; nothing can be made under /proc, so this one stays absent.
    env.set("PEERGATE_CACHE_DIR", "/proc/peergate-tests-have-no-cache");
    return env;
}

inline util::ProcessResult peergate(std::vector<std::string> args, util::EnvMap env = base_env()) {
    util::Command command;
    command.argv.push_back(PEERGATE_BINARY);
    command.argv.insert(command.argv.end(), args.begin(), args.end());
    command.env = std::move(env);
    command.timeout = std::chrono::seconds(30);
    auto result = util::run_process(command);
    return result ? *result : util::ProcessResult{};
}

// `env` output (NAME=value lines) as a map.
inline std::map<std::string, std::string> parse_env_output(const std::string& text) {
    std::map<std::string, std::string> vars;
    for (std::string_view line : util::split_lines(text)) {
        const auto eq = line.find('=');
        if (eq != std::string_view::npos) {
            vars.emplace(std::string(line.substr(0, eq)), std::string(line.substr(eq + 1)));
        }
    }
    return vars;
}

inline std::map<std::string, std::string> as_map(const util::EnvMap& env) {
    return {env.entries().begin(), env.entries().end()};
}

}  // namespace peergate::e2e
