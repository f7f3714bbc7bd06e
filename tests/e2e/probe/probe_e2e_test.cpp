// SPDX-License-Identifier: Apache-2.0
// `peergate probe` and `peergate bench` end to end: the built binary, the real dlopen path,
// the simulated CUDA driver driven by the machine files in tests/fixtures/machines.
#include "policy/gate/probe_cache.hpp"
#include "report/probe/cache_json.hpp"
#include "util/atomic_file.hpp"
#include "util/subprocess.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>

namespace peergate {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct RunResult {
    int exit_code = -1;
    std::string out;
    std::string err;
    json doc;
};

class ProbeE2e : public ::testing::Test {
protected:
    void SetUp() override {
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        cache_home_ = fs::temp_directory_path() / (std::string("peergate-probe-e2e-") +
                                                   info->name() + "-" + std::to_string(::getpid()));
        fs::remove_all(cache_home_);
        fs::create_directories(cache_home_);
    }

    void TearDown() override { fs::remove_all(cache_home_); }

    static std::string machine(const std::string& name) {
        return std::string(PEERGATE_TEST_FIXTURES) + "/machines/" + name + ".json";
    }

    RunResult run(std::vector<std::string> args, bool parse_json = true) const {
        util::Command command;
        command.argv = {PEERGATE_BINARY};
        command.argv.insert(command.argv.end(), args.begin(), args.end());
        command.env.set("PATH", "/usr/bin:/bin");
        command.env.set("HOME", cache_home_.string());
        command.env.set("XDG_CACHE_HOME", (cache_home_ / "xdg").string());
        // As root the default is /var/cache/peergate: name the directory this test owns.
        command.env.set("PEERGATE_CACHE_DIR", (cache_home_ / "xdg" / "peergate").string());
        command.timeout = std::chrono::seconds(60);
        auto result = util::run_process(command);
        EXPECT_TRUE(result.has_value());
        RunResult r{result->exit_code, result->out, result->err, json()};
        if (parse_json) {
            r.doc = json::parse(r.out, nullptr, false);
            EXPECT_FALSE(r.doc.is_discarded()) << r.out << r.err;
        }
        return r;
    }

    RunResult probe(const std::string& name, std::vector<std::string> extra) const {
        std::vector<std::string> args{"--simulate", machine(name), "--json", "probe"};
        args.insert(args.end(), extra.begin(), extra.end());
        return run(args);
    }

    static const json& pair(const json& doc, int src, int dst) {
        for (const auto& p : doc["pairs"]) {
            if (p["src"] == src && p["dst"] == dst) {
                return p;
            }
        }
        static const json none;
        ADD_FAILURE() << "no pair " << src << "->" << dst;
        return none;
    }

    fs::path cache_home_;
};

// By default every mode on every path: the run whose pass the gate trusts (issue 52).
TEST_F(ProbeE2e, IntactMachinePassesWithDeviceVerification) {
    const auto r = probe("probe-intact-2x", {"--sizes-mib", "1,2", "--repeats", "2"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.doc["schema"], "peergate.probe/v1");
    EXPECT_EQ(r.doc["result"], "pass");
    EXPECT_EQ(r.doc["verify"], "device");
    EXPECT_EQ(r.doc["gpus"], json({0, 1}));
    EXPECT_EQ(r.doc["modes"], json({"serial", "bidirectional", "concurrent"}));
    EXPECT_EQ(r.doc["paths"], json({"ce", "sm-store", "sm-load", "handshake"}));
    EXPECT_EQ(r.doc.value("paths_not_applicable", json()), json::array());
    ASSERT_EQ(r.doc["cells"].size(), 2U * 2U * 3U * 4U);  // sizes x pairs x modes x paths
    for (const auto& cell : r.doc["cells"]) {
        EXPECT_EQ(cell["status"], "ok");
        EXPECT_EQ(cell["repeats"], 2);
        EXPECT_EQ(cell["path"], "direct");
        EXPECT_TRUE(cell["gbps"].is_number());
    }
    EXPECT_EQ(pair(r.doc, 1, 0)["verdict"], "ok");
}

// Issue 52: on the machine that loses every copy under load, the doctor says "run 'peergate
// probe'", and a bare probe printed PASS (serial copies alone) and exited 0. By default it now
// tests under load on every path, and finds the loss.
TEST_F(ProbeE2e, ABareProbeTestsUnderLoadAndFindsTheLossTheDoctorSendsItTo) {
    const auto doctor = run({"--simulate", "pcie-rtx6000ada-2x-iommu", "doctor"}, false);
    EXPECT_NE(doctor.out.find("run 'peergate probe'"), std::string::npos) << doctor.out;
    const auto r = run({"--simulate", "pcie-rtx6000ada-2x-iommu", "probe"}, false);
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    EXPECT_EQ(r.out.find("PASS"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("result: FAIL: data lost: GPU 0 -> GPU 1 ("), std::string::npos) << r.out;
    for (const char* column : {"serial", "bidirectional", "concurrent", "sm-store", "handshake"}) {
        EXPECT_NE(r.out.find(column), std::string::npos) << column;
    }
}

// Asked for explicitly, a serial run still runs; its pass is no pass the gate would trust, so it
// is inconclusive and says what the gate needs.
TEST_F(ProbeE2e, ASerialPassIsInconclusiveNotTestedUnderLoad) {
    const auto r = run(
        {"--simulate", "pcie-rtx6000ada-2x-iommu", "probe", "--mode", "serial", "--sizes-mib", "1"},
        false);
    EXPECT_EQ(r.exit_code, 2) << r.out;
    EXPECT_EQ(r.out.find("PASS"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("result: INCONCLUSIVE: every ordered pair of GPUs 0,1 moved its data "
                         "intact on the ce, sm-store, sm-load, handshake paths (8 cells); not "
                         "trusted by the gate: not tested under load"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("the gate trusts a pass only from the concurrent mode on the direct path, "
                         "on the ce, sm-store, handshake paths"),
              std::string::npos)
        << r.out;
}

TEST_F(ProbeE2e, AlwaysDroppedPairFailsNamingThePairAndTheRemedy) {
    const auto r = run({"--simulate",
                        machine("probe-drop-always-2x"),
                        "probe",
                        "--sizes-mib",
                        "1",
                        "--repeats",
                        "1"},
                       false);
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.out.find("GPU 0 -> GPU 1 (serial, bidirectional, concurrent, ce path)"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("GGML_CUDA_P2P=0 turns peer access ON"), std::string::npos);
    EXPECT_NE(r.out.find("dmesg | grep -i -E 'DMAR|AMD-Vi'"), std::string::npos);
    EXPECT_NE(r.out.find("iommu=pt"), std::string::npos);
    EXPECT_NE(r.out.find("intel_iommu=off / amd_iommu=off"), std::string::npos);
    const auto j = probe("probe-drop-always-2x", {"--sizes-mib", "1", "--repeats", "1"});
    EXPECT_EQ(pair(j.doc, 0, 1)["verdict"], "data_lost");
    EXPECT_EQ(pair(j.doc, 1, 0)["verdict"], "ok");
    EXPECT_EQ(j.doc["cells"][0]["dropped"], (1 << 20) / 4);
    EXPECT_EQ(j.doc["cells"][0]["first_bad_offset"], 0);
}

TEST_F(ProbeE2e, DropsAboveSixteenMibFailOnlyTheLargerCells) {
    const auto r = probe("probe-drop-above-16mib-2x",
                         {"--sizes-mib", "16,32", "--repeats", "1", "--path", "ce"});
    EXPECT_EQ(r.exit_code, 1);
    for (const auto& cell : r.doc["cells"]) {
        EXPECT_EQ(cell["status"], cell["size_bytes"] == (16 << 20) ? "ok" : "dropped")
            << cell.dump();
    }
}

TEST_F(ProbeE2e, AnIntermittentLossPassesOneSweepAndFailsASoak) {
    const std::vector<std::string> sweep{
        "--sizes-mib", "1", "--repeats", "1", "--mode", "concurrent", "--no-cache"};
    const auto once = probe("probe-drop-intermittent-2x", sweep);
    EXPECT_EQ(once.exit_code, 0) << once.out;
    EXPECT_EQ(once.doc["rounds"], 1);
    EXPECT_TRUE(once.doc["soak_s"].is_null());
    auto soaked_args = sweep;
    soaked_args.insert(soaked_args.end(), {"--soak", "600"});
    const auto soaked = probe("probe-drop-intermittent-2x", soaked_args);
    EXPECT_EQ(soaked.exit_code, 1) << soaked.out;
    // Two copies a round; the eleventh copy is the first dropped, in round 6, which ends it.
    EXPECT_EQ(soaked.doc["rounds"], 6);
    EXPECT_EQ(soaked.doc["soak_s"], 600.0);
    EXPECT_EQ(soaked.doc["cells"][0]["repeats"], 6);
    EXPECT_EQ(soaked.doc["cells"][0]["status"], "dropped");
    EXPECT_NE(soaked.doc["reason"].get<std::string>().find(
                  "(in round 6 of a 600 s soak; the rounds before it were intact)"),
              std::string::npos)
        << soaked.doc["reason"];
    // Without a terminal, a line a round on stderr says the soak is alive (not with -q).
    // Eight cells a round: every path by default, the two copies and six SM transfers.
    EXPECT_NE(soaked.err.find("peergate: soak round 1 done: 8 cells"), std::string::npos)
        << soaked.err;
    EXPECT_NE(soaked.err.find("of 600 s; data lost, so the soak ends"), std::string::npos);
    std::vector<std::string> quiet{
        "--simulate", machine("probe-drop-intermittent-2x"), "-q", "probe"};
    quiet.insert(quiet.end(), soaked_args.begin(), soaked_args.end());
    const auto hushed = run(quiet, false);
    EXPECT_EQ(hushed.exit_code, 1);
    EXPECT_EQ(hushed.err.find("soak round"), std::string::npos) << hushed.err;
}

TEST_F(ProbeE2e, ANegativeSoakIsAUsageError) {
    const auto r = run({"--simulate", machine("probe-intact-2x"), "probe", "--soak", "-1"}, false);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("--soak"), std::string::npos) << r.err;
}

TEST_F(ProbeE2e, LoadDependentDropsPassSeriallyAndFailConcurrently) {
    const auto r =
        probe("probe-drop-under-load-2x", {"--sizes-mib", "1", "--repeats", "2", "--mode", "all"});
    EXPECT_EQ(r.exit_code, 1);
    for (const auto& [src, dst] : {std::pair{0, 1}, std::pair{1, 0}}) {
        const auto& p = pair(r.doc, src, dst);
        EXPECT_EQ(p["modes"]["serial"], "ok");
        EXPECT_EQ(p["modes"]["bidirectional"], "data_lost");
        EXPECT_EQ(p["modes"]["concurrent"], "data_lost");
    }
    EXPECT_NE(r.doc["reason"].get<std::string>().find("concurrent"), std::string::npos);
    // The serial-only probe moves every byte intact: the load-dependent case, which the gate
    // does not trust, so neither does the exit status (issue 52).
    const auto serial = probe("probe-drop-under-load-2x", {"--sizes-mib", "1", "--mode", "serial"});
    EXPECT_EQ(serial.exit_code, 2);
    EXPECT_EQ(serial.doc["result"], "inconclusive");
    EXPECT_NE(serial.doc["reason"].get<std::string>().find("not tested under load"),
              std::string::npos)
        << serial.doc["reason"];
}

TEST_F(ProbeE2e, CorruptedElementsAreReportedAsCorrupted) {
    const auto r =
        probe("probe-corrupt-2x",
              {"--sizes-mib", "1", "--repeats", "1", "--verify", "host", "--path", "ce"});
    EXPECT_EQ(r.exit_code, 1);
    for (const auto& cell : r.doc["cells"]) {
        EXPECT_EQ(cell["verify"], "host");
        if (cell["src"] == 1) {
            EXPECT_EQ(cell["status"], "corrupted");
            EXPECT_GT(cell["wrong"].get<int>(), 0);
            EXPECT_LT(cell["wrong"].get<int>(), (1 << 20) / 4 / 10);  // about 1%
            EXPECT_EQ(cell["dropped"], 0);
        } else {
            EXPECT_EQ(cell["status"], "ok");
        }
    }
}

TEST_F(ProbeE2e, AllocationFailureIsSkippedAndInconclusive) {
    const auto r = probe("probe-alloc-fail-2x", {"--sizes-mib", "1", "--repeats", "1"});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.doc["result"], "inconclusive");
    for (const auto& cell : r.doc["cells"]) {
        EXPECT_EQ(cell["status"], "skipped");
        EXPECT_NE(cell["detail"].get<std::string>().find("CUDA_ERROR_OUT_OF_MEMORY"),
                  std::string::npos);
    }
}

TEST_F(ProbeE2e, ADeviceThatNeverFinishesIsAWatchdogError) {
    const auto start = std::chrono::steady_clock::now();
    const auto r =
        probe("probe-hang-query-2x", {"--sizes-mib", "1", "--repeats", "1", "--timeout", "0.5"});
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.doc["cells"][0]["status"], "error");
    EXPECT_NE(r.doc["cells"][0]["detail"].get<std::string>().find("watchdog"), std::string::npos);
}

TEST_F(ProbeE2e, ADriverCallThatNeverReturnsIsAbandoned) {
    const auto start = std::chrono::steady_clock::now();
    const auto r =
        probe("probe-hang-copy-2x", {"--sizes-mib", "1", "--repeats", "1", "--timeout", "0.5"});
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.doc["reason"].get<std::string>().find("abandoned"), std::string::npos);
    EXPECT_EQ(r.doc["cells"][0]["status"], "error");
    EXPECT_EQ(r.doc["cells"][1]["status"], "skipped");
}

TEST_F(ProbeE2e, CannotRunIsExitTwo) {
    const struct {
        const char* name;
        std::vector<std::string> args;
        const char* mentions;
    } cases[] = {
        {"one GPU", {"--simulate", machine("probe-single-1x"), "--json", "probe"}, "at least two"},
        {"cuInit fails",
         {"--simulate", machine("probe-init-fail-2x"), "--json", "probe"},
         "cuInit"},
        {"no driver",
         {"--cuda-lib", "/nonexistent/libcuda.so.1", "--json", "probe"},
         "no CUDA driver"},
        {"unknown GPU",
         {"--simulate", machine("probe-intact-2x"), "--json", "probe", "--gpus", "0,7"},
         "GPU 7"},
    };

    for (const auto& c : cases) {
        SCOPED_TRACE(c.name);
        const auto r = run(c.args);
        EXPECT_EQ(r.exit_code, 2);
        EXPECT_EQ(r.doc["result"], "inconclusive");
        EXPECT_NE(r.doc["reason"].get<std::string>().find(c.mentions), std::string::npos)
            << r.doc["reason"];
        EXPECT_TRUE(r.doc["pairs"].empty());
    }
}

TEST_F(ProbeE2e, ZeroOrNegativeSizesAndRepeatsAreUsageErrors) {
    for (const auto& bad : {std::vector<std::string>{"--sizes-mib", "0"},
                            std::vector<std::string>{"--sizes-mib", "4,-1"},
                            std::vector<std::string>{"--repeats=0"},
                            std::vector<std::string>{"--repeats=-3"}}) {
        std::vector<std::string> args{"--simulate", machine("probe-intact-2x"), "probe"};
        args.insert(args.end(), bad.begin(), bad.end());
        const auto r = run(args, false);
        EXPECT_EQ(r.exit_code, 2) << bad[0];
        EXPECT_EQ(r.out.find("PASS"), std::string::npos);
        EXPECT_NE(r.err.find("peergate:"), std::string::npos) << r.err;
    }
}

// The SM paths need the peer kernels too, so without them no run tests what the gate needs:
// inconclusive, with every copy compared on the host.
TEST_F(ProbeE2e, WithoutKernelsVerificationFallsBackToTheHostAndSaysSo) {
    const auto r = probe("probe-no-kernels-2x", {"--sizes-mib", "1", "--repeats", "1"});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.doc["result"], "inconclusive");
    EXPECT_EQ(r.doc["verify"], "host");
    EXPECT_NE(r.doc["verify_note"].get<std::string>().find("cuModuleLoadData"), std::string::npos);
}

// No peer mapping: the copies are staged through host memory, the SM paths do not apply, and
// no peer path was tested, so nothing the gate could trust (issue 52).
TEST_F(ProbeE2e, RefusedPeerAccessIsRecordedAsTheStagedPath) {
    const auto r = probe("probe-no-peer-2x", {"--sizes-mib", "1", "--repeats", "1"});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.doc["cells"][0]["path"], "staged");
    EXPECT_NE(r.doc["reason"].get<std::string>().find(
                  "no peer path tested on GPU 0 -> GPU 1, GPU 1 -> GPU 0"),
              std::string::npos)
        << r.doc["reason"];
    EXPECT_EQ(r.doc.value("paths_not_applicable", json::array()).size(), 3U);
}

TEST_F(ProbeE2e, TheResultIsCachedAtomicallyWithTheMachineIdentity) {
    const auto r =
        probe("probe-intact-2x", {"--sizes-mib", "1", "--repeats", "1", "--mode", "concurrent"});
    ASSERT_EQ(r.exit_code, 0);
    const fs::path dir = cache_home_ / "xdg" / "peergate";
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir)) {
        names.push_back(entry.path().filename().string());
    }
    const std::string file = "probe-simulated-probe-intact-2x.json";
    std::sort(names.begin(), names.end());
    // No temporary left behind; the lock file the stores take stays (docs/security.md).
    EXPECT_EQ(names, (std::vector<std::string>{"." + file + ".lock", file}));
    auto text = util::read_file((dir / file).string());
    ASSERT_TRUE(text.has_value());
    std::string error;
    auto entry = report::probe::probe_cache_from_text(*text, &error);
    ASSERT_TRUE(entry.has_value()) << error;
    EXPECT_EQ(entry->identity.driver_version, "cuda 12080");
    EXPECT_EQ(entry->identity.pci_bus_ids,
              (std::vector<std::string>{"00000000:1B:00.0", "00000000:3B:00.0"}));
    EXPECT_EQ(entry->result.outcome, model::ProbeOutcome::pass);
    EXPECT_EQ(policy::gate::judge_cache(entry, entry->identity).concurrent_pass_pairs.size(), 2U);
    // --cache-dir wins; --no-cache writes nothing.
    const fs::path other = cache_home_ / "other";
    probe("probe-intact-2x", {"--sizes-mib", "1", "--repeats", "1", "--cache-dir", other.string()});
    EXPECT_TRUE(fs::exists(other / file));
    fs::remove_all(dir);
    probe("probe-intact-2x", {"--sizes-mib", "1", "--repeats", "1", "--no-cache"});
    EXPECT_FALSE(fs::exists(dir / file));
}

TEST_F(ProbeE2e, BenchNamesThePairWhoseP2pIsSlowerThanStaged) {
    const auto r =
        run({"--simulate", machine("bench-p2p-slow-2x"), "--json", "bench", "--size-mib", "4"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.doc["schema"], "peergate.bench/v1");
    const auto& p = r.doc["pairs"][0];
    EXPECT_TRUE(p["p2p_slower_than_staged"].get<bool>());
    EXPECT_LT(p["p2p_gbps"].get<double>(), p["staged_gbps"].get<double>());
    EXPECT_NE(r.doc["reason"].get<std::string>().find("GPU 0 -> GPU 1"), std::string::npos);
}

TEST_F(ProbeE2e, BenchOnNvlinkMeasuresEveryFigure) {
    const auto r = run({"--simulate",
                        machine("bench-nvlink-2x"),
                        "--json",
                        "bench",
                        "--size-mib",
                        "4",
                        "--latency"});
    EXPECT_EQ(r.exit_code, 0);
    ASSERT_EQ(r.doc["pairs"].size(), 2U);
    const auto& p = r.doc["pairs"][1];
    EXPECT_EQ(p["src"], 1);
    EXPECT_GT(p["p2p_gbps"].get<double>(), 4 * p["staged_gbps"].get<double>());
    EXPECT_GT(p["bidirectional_gbps"].get<double>(), 1.5 * p["p2p_gbps"].get<double>());
    EXPECT_GT(p["latency_us"].get<double>(), 0.0);
    EXPECT_EQ(p["samples"]["p2p_gbps"]["samples"].size(), 5U);
}

TEST_F(ProbeE2e, BenchOnOneGpuReportsDeviceAndHostBandwidth) {
    const auto r =
        run({"--simulate", machine("probe-single-1x"), "--json", "bench", "--size-mib", "4"});
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_TRUE(r.doc["pairs"].empty());
    ASSERT_EQ(r.doc["devices"].size(), 1U);
    EXPECT_GT(r.doc["devices"][0]["device_local_gbps"].get<double>(),
              r.doc["devices"][0]["host_to_device_gbps"].get<double>());
    EXPECT_EQ(run({"--cuda-lib", "/nonexistent/libcuda.so.1", "--json", "bench"}).exit_code, 2);
}

}  // namespace
}  // namespace peergate
