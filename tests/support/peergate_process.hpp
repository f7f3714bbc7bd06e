// SPDX-License-Identifier: Apache-2.0
// Runs the built peergate binary with an explicit environment, as users and CI do.
#pragma once

#include "util/subprocess.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdlib>
#include <string>
#include <vector>

namespace peergate::test {

// A minimal environment: PATH for the fake nvidia-smi scripts, and the sanitizer options
// ctest set for this test (the child must honour them too). Nothing else leaks in, so a
// PEERGATE_* variable on the developer's machine cannot change a result, and the real
// NVML and CUDA driver of a GPU host are not loaded unless a test names them (flags and
// --simulate beat these variables).
inline util::EnvMap clean_env() {
    util::EnvMap env;
    env.set("PATH", "/usr/bin:/bin");
    env.set("PEERGATE_NVML_LIB", "/nonexistent/libnvidia-ml.so.1");
    env.set("PEERGATE_CUDA_LIB", "/nonexistent/libcuda.so.1");
    // No verdict cache a test did not ask for: as root the default is /var/cache/peergate,
    // shared by every test; nothing can be made under /proc, so this one stays absent.
    env.set("PEERGATE_CACHE_DIR", "/proc/peergate-tests-have-no-cache");
    for (const char* name : {"ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS"}) {
        if (const char* value = std::getenv(name)) {  // NOLINT(concurrency-mt-unsafe): test setup
            env.set(name, value);
        }
    }
    return env;
}

struct PeergateRun {
    util::ProcessResult process;
    std::chrono::milliseconds elapsed{0};
};

// `peergate args...` under `env` (clean_env() when not given); fails the test if it cannot start.
inline PeergateRun run_peergate(const std::vector<std::string>& args,
                                util::EnvMap env = clean_env(),
                                std::chrono::milliseconds timeout = std::chrono::seconds(60)) {
    util::Command command;
    command.argv = {PEERGATE_BINARY};
    command.argv.insert(command.argv.end(), args.begin(), args.end());
    command.env = std::move(env);
    command.timeout = timeout;
    const auto start = std::chrono::steady_clock::now();
    auto result = util::run_process(command);
    PeergateRun run;
    run.elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - start);
    EXPECT_TRUE(result.has_value()) << (result ? "" : result.error().message);
    if (result) {
        run.process = std::move(*result);
        EXPECT_FALSE(run.process.timed_out) << "peergate itself did not finish";
    }
    return run;
}

// stdout parsed as JSON; fails the test (and returns null) when it is not JSON.
inline nlohmann::ordered_json stdout_json(const PeergateRun& run) {
    auto doc = nlohmann::ordered_json::parse(run.process.out, nullptr, false);
    EXPECT_FALSE(doc.is_discarded()) << "stdout is not JSON:\n"
                                     << run.process.out << "\nstderr:\n"
                                     << run.process.err;
    return doc.is_discarded() ? nlohmann::ordered_json() : doc;
}

// The first finding with `code` in a document's "findings" (doctor, nccl-log), or null.
inline const nlohmann::ordered_json* find_finding(const nlohmann::ordered_json& doc,
                                                  const std::string& code) {
    for (const auto& finding : doc["findings"]) {
        if (finding["code"] == code) {
            return &finding;
        }
    }
    return nullptr;
}

// The finding with `code` about exactly `gpus` (its "gpus" array as JSON text, "[2]"), or null.
inline const nlohmann::ordered_json* find_finding(const nlohmann::ordered_json& doc,
                                                  const std::string& code,
                                                  const std::string& gpus) {
    for (const auto& finding : doc["findings"]) {
        if (finding["code"] == code && finding["gpus"].dump() == gpus) {
            return &finding;
        }
    }
    return nullptr;
}

// A machine file among the test fixtures, by name without ".json".
inline std::string fixture_machine(const std::string& name) {
    return std::string(PEERGATE_TEST_FIXTURES) + "/machines/" + name + ".json";
}

inline std::string script_path(const std::string& name) {
    return std::string(PEERGATE_TEST_SCRIPTS) + "/" + name;
}

}  // namespace peergate::test
