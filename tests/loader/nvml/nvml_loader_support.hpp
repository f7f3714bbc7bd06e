// SPDX-License-Identifier: Apache-2.0
// Helpers for the NVML loader tests: machine fixtures, variants written to temp files, and
// one tier run through the simulated library (the real dlopen path).
#pragma once

#include "snapshot/machine_file.hpp"
#include "snapshot/machine_file_text.hpp"
#include "sources/nvml/nvml_tier.hpp"
#include "util/atomic_file.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace peergate::testing_nvml {

inline std::string fixture(const std::string& name) {
    return std::string(PEERGATE_TEST_FIXTURES) + "/machines/" + name + ".json";
}

inline snapshot::MachineFile load_fixture(const std::string& name) {
    auto machine = snapshot::load_machine(fixture(name));
    EXPECT_TRUE(machine) << (machine ? "" : machine.error().message);
    return machine ? *machine : snapshot::MachineFile{};
}

// Writes `machine` to a file of its own: the simulated driver reloads when the path
// changes, so each variant needs a distinct name.
inline std::string write_variant(const snapshot::MachineFile& machine, const std::string& tag) {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    const std::string path = ::testing::TempDir() + "/peergate-nvml-" + info->test_suite_name() +
                             "-" + info->name() + "-" + tag + ".json";
    std::filesystem::remove(path);
    EXPECT_TRUE(util::write_file_atomically(path, snapshot::to_json_text(machine)));
    return path;
}

inline snapshot::MachineFault nvml_fault(const std::string& call,
                                         const std::string& effect,
                                         int code = 0) {
    snapshot::MachineFault fault;
    fault.layer = "nvml";
    fault.call = call;
    fault.effect = effect;
    fault.code = code;
    return fault;
}

// Points the simulated driver at `machine_path` and runs tier 1 through `library`.
inline nvml::NvmlTierResult run_tier(const std::string& machine_path,
                                     const std::string& library = PEERGATE_SIM_NVML,
                                     std::chrono::milliseconds watchdog = std::chrono::seconds(10),
                                     const std::string& host_root = "/nonexistent-host-root") {
    ::setenv("PEERGATE_SIM_MACHINE", machine_path.c_str(), 1);  // NOLINT(concurrency-mt-unsafe)
    return nvml::run_nvml_tier(nvml::NvmlTierOptions{
        .libraries = {library}, .host_root = host_root, .watchdog = watchdog});
}

}  // namespace peergate::testing_nvml
