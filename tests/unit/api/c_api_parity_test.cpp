// SPDX-License-Identifier: Apache-2.0
// The C API and peergate::apply decide exactly as `peergate gate` does on the same simulated
// machine, the same verdict cache and the same environment (docs/python.md, docs/c-api.md).
// This process is a program that loaded the APIs: it has no PEERGATE_SIM_MACHINE of its own
// (the APIs set none), so the simulated CUDA driver that reads the verdict cache's machine
// identity is told its machine the way the command's is, or the two decide differently (issue
// 52: a cached loss was "not used: cuInit failed: 100 CUDA_ERROR_NO_DEVICE" here, probe_failed
// there).
#include "envp.hpp"
#include "peergate/gate.hpp"
#include "peergate/peergate_c.h"
#include "support/sim_machines.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace {

namespace fs = std::filesystem;
using peergate::test::ScratchDir;

// What the verdict cache holds when the gate decides.
enum class Cache {
    none,     // no probe ran
    probed,   // `probe --mode all` wrote its verdicts (passes, or the lossy box's loss)
    trusted,  // the same, with PEERGATE_TRUST_PROBE=1: a cached pass may allow PCIe P2P
};

struct ParityCase {
    std::string machine;  // a built-in name or a machine file
    Cache cache = Cache::none;
    std::string gpus;  // "" : no --gpus (every GPU, or what CUDA_VISIBLE_DEVICES exposes)
    // The machine whose probe wrote the cache, where `machine` cannot probe (its driver does
    // not initialise): the cache then holds verdicts this machine cannot be matched to now.
    std::string recorded_on;
};

std::string cache_name(Cache cache) {
    switch (cache) {
        case Cache::none:
            return "no cache";
        case Cache::probed:
            return "cached probe";
        case Cache::trusted:
            return "cached probe, trusted";
    }
    return "?";
}

std::string describe(const ParityCase& c) {
    return c.machine + ", " + cache_name(c.cache) +
           (c.recorded_on.empty() ? "" : " (recorded on " + c.recorded_on + ")") + ", gpus " +
           (c.gpus.empty() ? "-" : c.gpus);
}

// For gtest's messages.
void PrintTo(const ParityCase& c, std::ostream* out) {
    *out << describe(c);
}

// The one environment both sides decide under.
peergate::util::EnvMap case_env(const ParityCase& c, const ScratchDir& scratch) {
    peergate::util::EnvMap env;
    env.set("PATH", "/usr/bin:/bin");
    env.set("HOME", "/nonexistent-home");
    env.set("LANG", "C");
    env.set("TMPDIR", scratch.path());  // the simulated host root is written here
    env.set("PEERGATE_CACHE_DIR", scratch.file("cache"));
    env.set("PEERGATE_SIMULATE", c.machine);
    if (c.cache == Cache::trusted) {
        env.set("PEERGATE_TRUST_PROBE", "1");
    }
    return env;
}

peergate::util::ProcessResult run_peergate(std::vector<std::string> args,
                                           const peergate::util::EnvMap& env) {
    args.insert(args.begin(), PEERGATE_BINARY);
    return peergate::test::run_program(std::move(args), env, std::chrono::seconds(60));
}

// `peergate gate --json` under `env`: the command's decision document.
nlohmann::json command_decision(const ParityCase& c, const peergate::util::EnvMap& env) {
    std::vector<std::string> args{"gate", "--json"};
    if (!c.gpus.empty()) {
        args.insert(args.end(), {"--gpus", c.gpus});
    }
    const auto run = run_peergate(args, env);
    const auto doc = nlohmann::json::parse(run.out, nullptr, false);
    EXPECT_FALSE(doc.is_discarded()) << describe(c) << ": gate printed " << run.out << run.err;
    return doc;
}

// peergate_gate_json in this process, under the same environment as an envp.
nlohmann::json library_decision(const ParityCase& c, const peergate::util::EnvMap& env) {
    std::vector<std::string> vars;
    for (const auto& [name, value] : env.entries()) {
        vars.push_back(name + "=" + value);
    }
    const peergate::test::Envp envp(std::move(vars));
    std::string out(1 << 20, '\0');
    const int status = peergate_gate_json(envp.pointers.data(),
                                          c.gpus.empty() ? nullptr : c.gpus.c_str(),
                                          nullptr,
                                          out.data(),
                                          out.size());
    EXPECT_GE(status, 0) << describe(c) << ": the buffer was too small";
    return nlohmann::json::parse(out.c_str(), nullptr, false);
}

// The verdict cache's file for `machine` (docs/probe.md: one per simulated machine).
std::string cache_file(const ScratchDir& scratch, const std::string& machine) {
    return scratch.file("cache") + "/probe-simulated-" + fs::path(machine).stem().string() +
           ".json";
}

// Runs `probe --mode all` on the case's machine (or on the one it is recorded on, whose cache
// then becomes this machine's).
void record_cache(const ParityCase& c, const ScratchDir& scratch, peergate::util::EnvMap env) {
    const std::string recorder = c.recorded_on.empty() ? c.machine : c.recorded_on;
    env.set("PEERGATE_SIMULATE", recorder);
    const auto probe = run_peergate({"probe", "--mode", "all"}, env);
    ASSERT_TRUE(fs::exists(cache_file(scratch, recorder)))
        << describe(c) << ": the probe wrote no verdict cache: " << probe.out << probe.err;
    if (recorder != c.machine) {
        fs::copy_file(cache_file(scratch, recorder), cache_file(scratch, c.machine));
    }
}

// peergate::apply (include/peergate/gate.hpp) in this process: its decision's document.
nlohmann::json cpp_api_decision(const ParityCase& c, const peergate::util::EnvMap& env) {
    peergate::Environment given(env.entries().begin(), env.entries().end());
    peergate::ApplyOptions options;
    if (c.gpus == "0,1") {
        options.selection = peergate::Selection::list({0, 1});
    } else if (c.gpus == "0") {
        options.selection = peergate::Selection::list({0});
    } else {
        EXPECT_EQ(c.gpus, "") << "a selection this test does not translate";
    }
    return nlohmann::json::parse(peergate::apply(given, options).json, nullptr, false);
}

class CApiParity : public testing::TestWithParam<ParityCase> {};

TEST_P(CApiParity, DecidesAsTheCommandDoesOnTheSameMachineAndCache) {
    ASSERT_EQ(std::getenv("PEERGATE_SIM_MACHINE"), nullptr);  // NOLINT(concurrency-mt-unsafe)
    const ParityCase& c = GetParam();
    const ScratchDir scratch;
    const auto env = case_env(c, scratch);
    if (c.cache != Cache::none) {
        ASSERT_NO_FATAL_FAILURE(record_cache(c, scratch, env));
    }
    const auto command = command_decision(c, env);
    // Every field: the rule, p2p, the selection, what is set and unset, the warnings.
    EXPECT_EQ(library_decision(c, env).dump(2), command.dump(2))
        << describe(c) << ": the C API (first) and `peergate gate --json` (second) differ";
    EXPECT_EQ(cpp_api_decision(c, env).dump(2), command.dump(2))
        << describe(c) << ": peergate::apply (first) and `peergate gate --json` (second) differ";
}

// Every cache state on a machine that can probe itself: its own verdicts (passes, or the
// lossy box's loss), trusted or not, for GPUs 0,1 and for every GPU.
void add_probed_cases(const std::string& machine, std::vector<ParityCase>& cases) {
    for (const Cache cache : {Cache::none, Cache::probed, Cache::trusted}) {
        cases.push_back({.machine = machine, .cache = cache, .gpus = "0,1"});
    }
    cases.push_back({.machine = machine, .cache = Cache::probed, .gpus = ""});
}

std::vector<ParityCase> parity_cases() {
    std::vector<ParityCase> cases;
    std::vector<std::string> builtins;
    for (const auto& entry :
         fs::directory_iterator(std::string(PEERGATE_SOURCE_DIR) + "/machines")) {
        if (entry.path().extension() == ".json") {
            builtins.push_back(entry.path().stem().string());
        }
    }
    std::sort(builtins.begin(), builtins.end());
    for (const auto& machine : builtins) {
        if (peergate::test::load_builtin_machine(machine).gpus.size() >= 2) {
            add_probed_cases(machine, cases);
        } else {
            cases.push_back({.machine = machine, .cache = Cache::none, .gpus = ""});
            // GPU 1 is not on a one-GPU host: a usage error for both, tested in CApi.*.
            cases.push_back({.machine = machine, .cache = Cache::none, .gpus = "0"});
        }
    }
    const auto fixture = [](const char* name) {
        return std::string(PEERGATE_TEST_FIXTURES) + "/machines/" + name + ".json";
    };
    // A drop under load only, and an intact PCIe pair.
    add_probed_cases(fixture("probe-drop-under-load-2x"), cases);
    add_probed_cases(fixture("probe-intact-2x"), cases);
    // Drivers that do not initialise (cuInit 100, and 802 on a fabric not ready), with no
    // cache and with a loss recorded on a machine like them before.
    for (const auto& [broken, like] :
         {std::pair{fixture("probe-init-fail-2x"), fixture("probe-drop-under-load-2x")},
          std::pair{fixture("fabric-in-progress-8x"), std::string("hgx-b200-8x")}}) {
        cases.push_back({.machine = broken, .cache = Cache::none, .gpus = "0,1"});
        cases.push_back(
            {.machine = broken, .cache = Cache::probed, .gpus = "0,1", .recorded_on = like});
    }
    return cases;
}

std::string case_name(const testing::TestParamInfo<ParityCase>& info) {
    std::string name = fs::path(info.param.machine).stem().string() + "_" +
                       cache_name(info.param.cache) + "_" +
                       (info.param.gpus.empty() ? "every_gpu" : info.param.gpus);
    std::replace_if(
        name.begin(), name.end(), [](char ch) { return std::isalnum(ch) == 0; }, '_');
    return name;
}

INSTANTIATE_TEST_SUITE_P(EveryMachine, CApiParity, testing::ValuesIn(parity_cases()), case_name);

}  // namespace
