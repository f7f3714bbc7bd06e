// SPDX-License-Identifier: Apache-2.0
// Helpers shared by the simulated-machine tests: the built-in machines, a scratch
// directory that removes itself, and running a built program with an explicit environment.
#pragma once

#include "snapshot/machine_file.hpp"
#include "util/atomic_file.hpp"
#include "util/env_map.hpp"
#include "util/subprocess.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

namespace peergate::test {

inline const std::vector<std::string>& builtin_machine_names() {
    static const std::vector<std::string> kNames{"bridged-a100-4x",
                                                 "dgx1-v100",
                                                 "hgx-b200-8x",
                                                 "pcie-rtx6000ada-2x-iommu",
                                                 "rtx4090-8x-pcie",
                                                 "single-h200"};
    return kNames;
}

inline std::string builtin_machine_path(const std::string& name) {
    return std::string(PEERGATE_SOURCE_DIR) + "/machines/" + name + ".json";
}

inline snapshot::MachineFile load_builtin_machine(const std::string& name) {
    auto machine = snapshot::load_machine(builtin_machine_path(name));
    EXPECT_TRUE(machine.has_value()) << (machine ? "" : machine.error().message);
    return machine ? *machine : snapshot::MachineFile{};
}

// A fresh directory under the system temp dir, removed with everything in it.
class ScratchDir {
public:
    ScratchDir() {
        std::string pattern =
            (std::filesystem::temp_directory_path() / "peergate-test-XXXXXX").string();
        path_ = ::mkdtemp(pattern.data()) != nullptr ? pattern : "";
    }

    ~ScratchDir() {
        std::error_code ec;
        std::filesystem::remove_all(path_, ec);
    }

    ScratchDir(const ScratchDir&) = delete;
    ScratchDir& operator=(const ScratchDir&) = delete;

    const std::string& path() const { return path_; }

    std::string file(const std::string& name) const { return path_ + "/" + name; }

    // Writes `text` to `name` inside the directory and returns its path.
    std::string write(const std::string& name, const std::string& text) const {
        EXPECT_TRUE(util::write_file_atomically(file(name), text).has_value());
        return file(name);
    }

private:
    std::string path_;
};

// Runs argv with exactly `env` (plus PATH), failing the test if it cannot start.
inline util::ProcessResult run_program(
    std::vector<std::string> argv,
    util::EnvMap env = {},
    std::chrono::milliseconds timeout = std::chrono::seconds(30)) {
    if (!env.contains("PATH")) {
        env.set("PATH", "/usr/local/bin:/usr/bin:/bin");
    }
    util::Command command{.argv = std::move(argv), .env = env, .timeout = timeout};
    auto result = util::run_process(command);
    EXPECT_TRUE(result.has_value()) << (result ? "" : result.error().message);
    return result ? *result : util::ProcessResult{};
}

// The built peergate with a private TMPDIR, so the host roots a simulated run materialises
// stay in `scratch`.
inline util::ProcessResult peergate_in(
    const ScratchDir& scratch,
    std::vector<std::string> args,
    std::chrono::milliseconds timeout = std::chrono::seconds(30)) {
    args.insert(args.begin(), PEERGATE_BINARY);
    util::EnvMap env;
    env.set("TMPDIR", scratch.path());
    return run_program(std::move(args), env, timeout);
}

}  // namespace peergate::test
