// SPDX-License-Identifier: Apache-2.0
// The probe's paths end to end (docs/probe.md, "Paths"): the built binary, the simulated CUDA
// driver running the peer kernels with the machine file's "sm" and "flag" faults, the verdict
// cache, and the gate trusting a cached pass for a profile only on the paths its engine uses.
#include "support/peergate_process.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

namespace peergate::test {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

class ProbePathsE2e : public ::testing::Test {
protected:
    void SetUp() override {
        root_ = fs::temp_directory_path() /
                ("peergate-probe-paths-" +
                 std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
        fs::remove_all(root_);
        fs::create_directories(root_ / "cache");
    }

    void TearDown() override { fs::remove_all(root_); }

    util::EnvMap env(bool trust = false) const {
        auto e = clean_env();
        e.set("PEERGATE_CACHE_DIR", (root_ / "cache").string());
        if (trust) {
            e.set("PEERGATE_TRUST_PROBE", "1");
        }
        return e;
    }

    PeergateRun probe(const std::string& name, std::vector<std::string> more) const {
        std::vector<std::string> args{"--simulate", fixture_machine(name), "--json", "probe"};
        args.insert(args.end(), more.begin(), more.end());
        return run_peergate(args, env());
    }

    PeergateRun gate(const std::string& name, const std::string& profile) const {
        return run_peergate(
            {"--simulate", fixture_machine(name), "gate", "--json", "--for", profile}, env(true));
    }

    static Json pair(const Json& doc, int src, int dst) {
        for (const auto& p : doc["pairs"]) {
            if (p["src"] == src && p["dst"] == dst) {
                return p;
            }
        }
        ADD_FAILURE() << "no pair " << src << "->" << dst;
        return Json();
    }

    static Json cell(const Json& doc, int src, int dst, const std::string& path) {
        for (const auto& c : doc["cells"]) {
            if (c["src"] == src && c["dst"] == dst && c["path_kind"] == path) {
                return c;
            }
        }
        ADD_FAILURE() << "no cell " << src << "->" << dst << " on " << path;
        return Json();
    }

    fs::path root_;
};

const std::vector<std::string> kQuickAll{
    "--path", "all", "--mode", "concurrent", "--sizes-mib", "1", "--repeats", "2"};

TEST_F(ProbePathsE2e, EveryPathIntactPassesAndSaysWhichPathsItCovered) {
    const auto run = probe("probe-intact-2x", kQuickAll);
    EXPECT_EQ(run.process.exit_code, 0) << run.process.out << run.process.err;
    const auto doc = stdout_json(run);
    EXPECT_EQ(doc["result"], "pass");
    EXPECT_EQ(doc["paths"].dump(), R"(["ce","sm-store","sm-load","handshake"])");
    EXPECT_EQ(pair(doc, 0, 1)["paths"].dump(),
              R"({"ce":"ok","sm-store":"ok","sm-load":"ok","handshake":"ok"})");
    EXPECT_EQ(cell(doc, 1, 0, "handshake")["handshake"], "intact");
    EXPECT_EQ(cell(doc, 1, 0, "ce")["handshake"], nullptr);
    ASSERT_TRUE(doc["device_s"].is_number());
    EXPECT_GT(doc["device_s"].get<double>(), 0.0);
}

// The issue's first case: copies intact, SM stores dropped.
TEST_F(ProbePathsE2e, SmStoresDroppedFailsNamingThePairAndThePath) {
    const auto run =
        probe("probe-sm-store-drop-2x",
              {"--path", "all", "--mode", "all", "--sizes-mib", "1", "--repeats", "1"});
    EXPECT_EQ(run.process.exit_code, 1) << run.process.out;
    const auto doc = stdout_json(run);
    EXPECT_NE(doc["reason"].get<std::string>().find("GPU 0 -> GPU 1"), std::string::npos);
    EXPECT_NE(doc["reason"].get<std::string>().find("sm-store path"), std::string::npos)
        << doc["reason"];
    const auto p = pair(doc, 0, 1);
    EXPECT_EQ(p["paths"]["ce"], "ok");
    EXPECT_EQ(p["paths"]["sm-store"], "data_lost");
    EXPECT_EQ(p["paths"]["handshake"], "data_lost");  // its payload is SM stores too
    EXPECT_EQ(p["paths"]["sm-load"], "ok");
    EXPECT_EQ(pair(doc, 1, 0)["verdict"], "ok");
    EXPECT_EQ(cell(doc, 0, 1, "sm-store")["status"], "dropped");
    EXPECT_NE(doc["remedy"].get<std::string>().find("NCCL_P2P_DISABLE=1"), std::string::npos);
}

// ... and then the gate: NCCL's paths vetoed even though the copies passed and the copy
// path's pass is in the cache; llama.cpp follows the copies.
TEST_F(ProbePathsE2e, TheGateTrustsACachedPassOnlyOnThePathsTheProfileUses) {
    const std::string m = "probe-sm-store-drop-2x";
    ASSERT_EQ(probe(m, kQuickAll).process.exit_code, 1);
    const auto nccl = gate(m, "nccl");
    EXPECT_EQ(nccl.process.exit_code, 1) << nccl.process.out;
    const auto nccl_doc = stdout_json(nccl);
    EXPECT_EQ(nccl_doc["p2p"], false);
    EXPECT_NE(nccl_doc.dump().find("lost data from GPU 0 to GPU 1"), std::string::npos)
        << nccl_doc.dump(2);
    const auto llama = gate(m, "llama.cpp");
    EXPECT_EQ(llama.process.exit_code, 0) << llama.process.out;
    const auto llama_doc = stdout_json(llama);
    EXPECT_EQ(llama_doc["p2p"], true);
    EXPECT_EQ(llama_doc["set"]["GGML_CUDA_P2P"], "1");
}

// A copy-path pass alone does not vouch for NCCL: its engine stores through the mapping. The
// probe says so: inconclusive, a pass the gate would trust for llama.cpp alone (issue 52).
TEST_F(ProbePathsE2e, ACopyOnlyPassDoesNotVouchForNccl) {
    const std::string m = "probe-sm-store-drop-2x";
    const auto copies =
        probe(m, {"--mode", "concurrent", "--path", "ce", "--sizes-mib", "1", "--repeats", "1"});
    ASSERT_EQ(copies.process.exit_code, 2) << copies.process.out;
    const auto reason = stdout_json(copies)["reason"].get<std::string>();
    EXPECT_NE(reason.find("not tested on the sm-store, handshake paths"), std::string::npos)
        << reason;
    EXPECT_NE(reason.find("(it would trust this one for llama.cpp alone)"), std::string::npos)
        << reason;
    const auto nccl = gate(m, "nccl");
    EXPECT_EQ(stdout_json(nccl)["p2p"], false) << nccl.process.out;
    EXPECT_NE(nccl.process.out.find("0 ordered pairs passed the concurrent mode on the "
                                    "sm-store, handshake paths nccl uses"),
              std::string::npos)
        << nccl.process.out;
    EXPECT_EQ(stdout_json(gate(m, "llama.cpp"))["p2p"], true);
}

TEST_F(ProbePathsE2e, MirroredLoadsFailTheLoadPathOnly) {
    const auto run = probe("probe-sm-load-mirror-2x", kQuickAll);
    EXPECT_EQ(run.process.exit_code, 1);
    const auto doc = stdout_json(run);
    const auto p = pair(doc, 0, 1);
    EXPECT_EQ(p["paths"].dump(),
              R"({"ce":"ok","sm-store":"ok","sm-load":"data_lost","handshake":"ok"})");
    EXPECT_EQ(cell(doc, 0, 1, "sm-load")["status"], "dropped");
}

// The issue's second case: the flag never arrives; the waiter's budget ends it, never the
// watchdog, never a hang.
TEST_F(ProbePathsE2e, ALostFlagEndsWithinItsBudgetAsFlagLost) {
    const auto run = probe("probe-flag-lost-2x", {"--path", "all", "--timeout", "4"});
    EXPECT_EQ(run.process.exit_code, 1) << run.process.out << run.process.err;
    EXPECT_LT(run.elapsed, std::chrono::seconds(20));
    const auto doc = stdout_json(run);
    const auto lost = cell(doc, 0, 1, "handshake");
    EXPECT_EQ(lost["status"], "flag_lost");
    EXPECT_EQ(lost["handshake"], "flag_lost");
    EXPECT_EQ(lost["flags_lost"], 3);
    EXPECT_EQ(pair(doc, 0, 1)["paths"]["handshake"], "data_lost");
    EXPECT_EQ(pair(doc, 0, 1)["paths"]["sm-store"], "ok");
    EXPECT_NE(pair(doc, 0, 1)["detail"].get<std::string>().find("the flag never arrived"),
              std::string::npos);
    EXPECT_EQ(pair(doc, 1, 0)["verdict"], "ok");
}

TEST_F(ProbePathsE2e, AFlagBeforeItsPayloadIsDataLost) {
    const auto run = probe("probe-flag-early-2x", kQuickAll);
    EXPECT_EQ(run.process.exit_code, 1);
    const auto doc = stdout_json(run);
    const auto early = cell(doc, 1, 0, "handshake");
    EXPECT_EQ(early["status"], "dropped");
    EXPECT_EQ(early["handshake"], "data_lost");
    EXPECT_EQ(pair(doc, 1, 0)["paths"]["ce"], "ok");
    EXPECT_EQ(pair(doc, 0, 1)["verdict"], "ok");
}

TEST_F(ProbePathsE2e, QuickRunsEveryPathAtOnceAndReportsItsDeviceTime) {
    const auto run = probe("probe-intact-2x", {"--quick"});
    EXPECT_EQ(run.process.exit_code, 0) << run.process.out << run.process.err;
    const auto doc = stdout_json(run);
    EXPECT_EQ(doc["quick"], true);
    EXPECT_EQ(doc["modes"].dump(), R"(["concurrent"])");
    EXPECT_EQ(doc["cells"].size(), 2U * 4U);
    EXPECT_GT(doc["device_s"].get<double>(), 0.0);
    EXPECT_LT(doc["device_s"].get<double>(), 0.5);
    const auto refused = run_peergate(
        {"--simulate", fixture_machine("probe-intact-2x"), "probe", "--quick", "--mode", "serial"},
        env());
    EXPECT_EQ(refused.process.exit_code, 2);
    EXPECT_NE(refused.process.err.find("excludes"), std::string::npos) << refused.process.err;
}

// Issue 52: where the driver refuses peer access, the quick check's summary named the three SM
// paths as intact while every one of their cells was skipped. It names the path tested and the
// ones that did not apply, and why; with no peer path tested, nothing the gate could trust.
TEST_F(ProbePathsE2e, QuickNamesOnlyThePathsTestedAndWhyTheOthersDidNotApply) {
    const std::vector<std::string> args{
        "--simulate", "rtx4090-8x-pcie", "probe", "--quick", "--gpus", "0,1"};
    auto json_args = args;
    json_args.insert(json_args.begin() + 2, "--json");
    const auto run = run_peergate(json_args, env());
    EXPECT_EQ(run.process.exit_code, 2) << run.process.out;
    const auto doc = stdout_json(run);
    const auto reason = doc["reason"].get<std::string>();
    EXPECT_EQ(reason.find("ce, sm-store, sm-load, handshake paths"), std::string::npos) << reason;
    EXPECT_NE(reason.find("moved its data intact on the ce path (2 cells)"), std::string::npos)
        << reason;
    EXPECT_NE(reason.find("; sm-store, sm-load, handshake not applicable: the driver refused peer "
                          "access"),
              std::string::npos)
        << reason;
    ASSERT_EQ(doc.value("paths_not_applicable", Json::array()).size(), 3U) << doc.dump(2);
    EXPECT_EQ(doc["paths_not_applicable"][0].dump(),
              R"({"path":"sm-store","why":"peer_access_refused","reason":"the driver refused )"
              R"(peer access","pairs":[{"src":0,"dst":1},{"src":1,"dst":0}]})");
    EXPECT_EQ(doc["paths_not_applicable"][2]["path"], "handshake");
    const auto text = run_peergate(args, env());
    EXPECT_EQ(text.process.exit_code, 2);
    EXPECT_EQ(text.process.out.find("PASS"), std::string::npos) << text.process.out;
    EXPECT_NE(text.process.out.find("n/a"), std::string::npos) << text.process.out;
    EXPECT_NE(text.process.out.find(reason), std::string::npos) << text.process.out;
}

// Where the peer kernels cannot load, the SM cells are skipped with the reason: never a pass.
TEST_F(ProbePathsE2e, WithoutThePeerKernelsTheSmPathsAreSkippedNotPassed) {
    const auto run = probe("probe-no-kernels-2x", kQuickAll);
    EXPECT_EQ(run.process.exit_code, 2) << run.process.out;
    const auto doc = stdout_json(run);
    EXPECT_EQ(doc["result"], "inconclusive");
    const auto skipped = cell(doc, 0, 1, "sm-store");
    EXPECT_EQ(skipped["status"], "skipped");
    EXPECT_NE(skipped["detail"].get<std::string>().find("did not load"), std::string::npos)
        << skipped["detail"];
    EXPECT_EQ(cell(doc, 0, 1, "ce")["status"], "ok");
}

TEST_F(ProbePathsE2e, DoctorShowsEachPathAndNamesCopiesPassSmFails) {
    const auto run = run_peergate(
        {"--simulate", fixture_machine("probe-sm-store-drop-2x"), "--json", "doctor", "--probe"},
        env());
    const auto doc = stdout_json(run);
    const auto* finding = find_finding(doc, "probe_sm_path_lost");
    ASSERT_NE(finding, nullptr) << doc["findings"].dump(2);
    EXPECT_NE((*finding)["message"].get<std::string>().find(
                  "Copies pass, SM stores or the handshake fail: GPU 0 -> GPU 1 (sm-store, "
                  "handshake)"),
              std::string::npos)
        << (*finding)["message"];
    EXPECT_NE((*finding)["remedy"].get<std::string>().find("--disable-custom-all-reduce"),
              std::string::npos);
    const auto text = run_peergate(
        {"--simulate", fixture_machine("probe-sm-store-drop-2x"), "doctor", "--probe"}, env());
    EXPECT_NE(text.process.out.find("ce:ok sm-store:data_lost sm-load:ok handshake:data_lost"),
              std::string::npos)
        << text.process.out;
    const auto page = root_ / "doctor.html";
    run_peergate({"--simulate",
                  fixture_machine("probe-sm-store-drop-2x"),
                  "doctor",
                  "--probe",
                  "--html",
                  page.string()},
                 env());
    std::ifstream in(page);
    const std::string html((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_NE(html.find("<br>sm-store data_lost<br>handshake data_lost"), std::string::npos);
}

}  // namespace
}  // namespace peergate::test
