// SPDX-License-Identifier: Apache-2.0
// The gate and the on-disk verdict cache: reported always, trusted only with
// PEERGATE_TRUST_PROBE=1, and only for pairs that passed the concurrent mode on this boot.
#include "policy/gate/probe_cache.hpp"
#include "report/probe/cache_json.hpp"
#include "sources/host/host_name.hpp"
#include "support/peergate_process.hpp"
#include "util/atomic_file.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <string>

namespace peergate::test {
namespace {

namespace fs = std::filesystem;

class GateProbeCache : public ::testing::Test {
protected:
    void SetUp() override {
        root_ = fs::temp_directory_path() /
                ("peergate-gate-cache-" +
                 std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
        fs::remove_all(root_);
        fs::create_directories(root_ / "peergate");
    }

    void TearDown() override { fs::remove_all(root_); }

    util::EnvMap env(bool trust) const {
        auto e = clean_env();
        e.set("PEERGATE_CACHE_DIR", (root_ / "peergate").string());
        if (trust) {
            e.set("PEERGATE_TRUST_PROBE", "1");
        }
        return e;
    }

    // Probes `machine` in concurrent mode (with `more` arguments), writing the cache under
    // root_.
    int probe(const std::string& machine, const std::vector<std::string>& more = {}) const {
        std::vector<std::string> args = {"--simulate", machine, "probe", "-q"};
        args.insert(args.end(), more.begin(), more.end());
        args.insert(args.end(), {"--mode", "concurrent", "--sizes-mib", "1", "--repeats", "1"});
        const auto run = run_peergate(args, env(false));
        EXPECT_TRUE(fs::exists(cache_file(machine))) << run.process.err;
        return run.process.exit_code;
    }

    // Each simulated machine has its own file, named after its machine file's stem.
    fs::path cache_file(const std::string& machine) const {
        return root_ / "peergate" /
               ("probe-simulated-" + fs::path(machine).stem().string() + ".json");
    }

    PeergateRun gate(const std::string& machine, bool trust) const {
        return run_peergate({"--simulate", machine, "gate", "--json"}, env(trust));
    }

    // A probe of the fixture `name` finds every pair intact (exit `probe_exit`: 0 a pass the gate
    // would trust, 2 one it would not), yet the gate vetoes and its warning says `why`.
    void expect_passing_probe_not_used(const std::string& name,
                                       bool trust,
                                       const char* why,
                                       int probe_exit = 0) {
        const auto machine = fixture_machine(name);
        ASSERT_EQ(probe(machine), probe_exit);
        const auto run = gate(machine, trust);
        EXPECT_EQ(run.process.exit_code, 1) << run.process.out;
        const auto doc = stdout_json(run);
        EXPECT_EQ(doc["p2p"], false);
        EXPECT_NE(doc["warnings"].dump().find(why), std::string::npos) << doc.dump(2);
    }

    fs::path root_;
};

TEST_F(GateProbeCache, APassedProbeIsReportedButNotTrustedWithoutOptIn) {
    expect_passing_probe_not_used("probe-intact-2x", false, "PEERGATE_TRUST_PROBE=1");
}

TEST_F(GateProbeCache, WithOptInAPassedConcurrentProbeAllowsPciePeerToPeer) {
    const auto machine = fixture_machine("probe-intact-2x");
    ASSERT_EQ(probe(machine), 0);
    const auto run = gate(machine, true);
    EXPECT_EQ(run.process.exit_code, 0) << run.process.out;
    const auto doc = stdout_json(run);
    EXPECT_EQ(doc["p2p"], true);
    EXPECT_EQ(doc["set"]["GGML_CUDA_P2P"], "1");
}

// A cache another user could have written (issue 34, item 1) is no verdict, even with the
// opt-in: a forged "pass" must not switch P2P on for root.
TEST_F(GateProbeCache, WithOptInACacheOthersCanWriteIsNotTrusted) {
    const auto machine = fixture_machine("probe-intact-2x");
    ASSERT_EQ(probe(machine), 0);
    fs::permissions(
        cache_file(machine),
        fs::perms::all & ~(fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec));
    const auto run = gate(machine, true);
    EXPECT_EQ(run.process.exit_code, 1) << run.process.out;
    const auto doc = stdout_json(run);
    EXPECT_EQ(doc["p2p"], false);
    EXPECT_NE(doc.dump().find("not trusted: it has mode 0666"), std::string::npos) << doc.dump(2);
}

TEST_F(GateProbeCache, WithOptInADataLosingProbeStillVetoes) {
    ASSERT_EQ(probe("pcie-rtx6000ada-2x-iommu"), 1);
    const auto run = gate("pcie-rtx6000ada-2x-iommu", true);
    EXPECT_EQ(run.process.exit_code, 1);
    const auto doc = stdout_json(run);
    EXPECT_EQ(doc["p2p"], false);
    EXPECT_FALSE(doc["set"].contains("GGML_CUDA_P2P"));
}

// Data lost on this boot is no doubt: the cached loss vetoes without the opt-in, and beats
// PEERGATE_FORCE_P2P as a probe failure does.
TEST_F(GateProbeCache, ACachedLossVetoesEvenForcedP2pWithoutOptIn) {
    ASSERT_EQ(probe("pcie-rtx6000ada-2x-iommu"), 1);
    auto forced = env(false);
    forced.set("PEERGATE_FORCE_P2P", "1");
    const auto run =
        run_peergate({"--simulate", "pcie-rtx6000ada-2x-iommu", "gate", "--json"}, forced);
    EXPECT_EQ(run.process.exit_code, 1) << run.process.out;
    const auto doc = stdout_json(run);
    EXPECT_EQ(doc["p2p"], false);
    EXPECT_NE(doc["veto"].get<std::string>().find("the integrity probe lost data from GPU"),
              std::string::npos)
        << doc.dump(2);
    EXPECT_NE(doc["warnings"].dump().find("data lost on GPU 0 -> GPU 1"), std::string::npos)
        << doc.dump(2);
}

// The driver allows peer access but will not enable it (CUDA_ERROR_TOO_MANY_PEERS): the
// copies were staged through host memory, so their pass says nothing of the direct path, and
// the probe itself calls it inconclusive (docs/probe.md, "What a pass means").
TEST_F(GateProbeCache, APassOnTheStagedPathDoesNotVouchEvenWithOptIn) {
    expect_passing_probe_not_used("probe-peer-enable-fail-2x", true, "0 ordered pairs passed", 2);
}

TEST_F(GateProbeCache, AnotherBootInvalidatesTheEntry) {
    const auto machine = fixture_machine("probe-intact-2x");
    ASSERT_EQ(probe(machine), 0);
    // The same machine after a reboot: only the boot id differs.
    auto text = util::read_file(machine);
    ASSERT_TRUE(text.has_value());
    const std::string old_boot = "6f1c1a52-0000-4000-8000-000000000001";
    const auto at = text->find(old_boot);
    ASSERT_NE(at, std::string::npos);
    text->replace(at, old_boot.size(), "6f1c1a52-0000-4000-8000-000000000002");
    fs::create_directories(root_ / "rebooted");
    const std::string rebooted = (root_ / "rebooted" / "probe-intact-2x.json").string();
    ASSERT_TRUE(util::write_file_atomically(rebooted, *text).has_value());
    const auto run = gate(rebooted, true);
    EXPECT_EQ(run.process.exit_code, 1);
    const auto doc = stdout_json(run);
    EXPECT_EQ(doc["p2p"], false);
    EXPECT_NE(doc["warnings"].dump().find("not used"), std::string::npos) << doc.dump(2);
}

// A cluster's nodes often share $HOME, and a demo may run on a GPU host: a simulated probe
// writes its machine's own file and leaves the host's and other machines' files alone.
TEST_F(GateProbeCache, AProbeReplacesOnlyItsOwnMachinesResult) {
    const fs::path host_file =
        root_ / "peergate" / ("probe-" + sources::host::host_name() + ".json");
    ASSERT_TRUE(
        util::write_file_atomically(host_file.string(), "the host's own result").has_value());
    const auto intact = fixture_machine("probe-intact-2x");
    ASSERT_EQ(probe(intact), 0);
    ASSERT_EQ(probe("pcie-rtx6000ada-2x-iommu"), 1);
    EXPECT_EQ(util::read_file(host_file.string()).value_or(""), "the host's own result");
    // The intact machine's pass is still there, and trusted.
    const auto run = gate(intact, true);
    EXPECT_EQ(run.process.exit_code, 0) << run.process.out;
    // A machine never probed hears nothing of the others' results.
    const auto other = gate("bridged-a100-4x", false);
    EXPECT_EQ(stdout_json(other)["warnings"].dump().find("cached probe"), std::string::npos)
        << other.process.out;
}

// Probes of different GPUs on one boot add up: probing 2,3 keeps what probing 0,1 found.
TEST_F(GateProbeCache, ProbesOfOtherGpusAddUp) {
    const auto machine = fixture_machine("acs-redirect-4x");
    for (const char* gpus : {"0,1", "2,3"}) {
        ASSERT_EQ(probe(machine, {"--gpus", gpus}), 0);
    }
    const auto text = util::read_file(cache_file(machine).string());
    ASSERT_TRUE(text.has_value());
    const auto entry = report::probe::probe_cache_from_text(*text, nullptr);
    ASSERT_TRUE(entry.has_value());
    EXPECT_EQ(entry->result.gpus, (std::vector<int>{0, 1, 2, 3}));
    EXPECT_EQ(policy::gate::judge_cache(entry, entry->identity).concurrent_pass_pairs,
              (std::vector<std::pair<int, int>>{{0, 1}, {1, 0}, {2, 3}, {3, 2}}));
}

// Probes of disjoint GPUs at the same time (issue 34): each read-merge-write of the cache is
// under a lock beside it, so neither loses the other's pairs (it did in 10 of 30 tries).
TEST_F(GateProbeCache, ConcurrentProbesOfOtherGpusBothLand) {
    const auto machine = fixture_machine("acs-redirect-4x");
    for (int attempt = 0; attempt < 3; ++attempt) {
        fs::remove(cache_file(machine));
        auto first = std::async(std::launch::async, [&] {
            return probe(machine, {"--gpus", "0,1"});
        });
        auto second = std::async(std::launch::async, [&] {
            return probe(machine, {"--gpus", "2,3"});
        });
        ASSERT_EQ(first.get(), 0);
        ASSERT_EQ(second.get(), 0);
        const auto text = util::read_file(cache_file(machine).string());
        ASSERT_TRUE(text.has_value());
        const auto entry = report::probe::probe_cache_from_text(*text, nullptr);
        ASSERT_TRUE(entry.has_value());
        EXPECT_EQ(entry->result.gpus, (std::vector<int>{0, 1, 2, 3})) << "attempt " << attempt;
    }
}

// FORCE overrides the name gates, never doubt about data: a cache that is there and cannot be
// read or trusted may hold a loss, so forcing is refused while it stands (docs/security.md).
TEST_F(GateProbeCache, ForceIsRefusedWhileTheCacheCannotBeTrusted) {
    const auto machine = fixture_machine("probe-intact-2x");
    auto forced = env(false);
    forced.set("PEERGATE_FORCE_P2P", "1");
    const auto gate_forced = [&] {
        return stdout_json(run_peergate({"--simulate", machine, "gate", "--json"}, forced));
    };
    EXPECT_EQ(gate_forced()["rule"], "force_p2p") << "no cache: FORCE as documented";

    const std::vector<std::pair<std::string, std::function<void(const fs::path&)>>> plants = {
        {"a FIFO", [](const fs::path& p) { ASSERT_EQ(::mkfifo(p.c_str(), 0644), 0); }},
        {"unreadable", [](const fs::path& p) { std::ofstream(p) << "{\"schema\": \"peerga"; }},
        {"symbolic link", [&](const fs::path& p) { fs::create_symlink(root_ / "elsewhere", p); }},
        {"mode 0666",
         [](const fs::path& p) {
             std::ofstream(p) << "{}";
             fs::permissions(p, fs::perms(0666));
         }},
    };
    for (const auto& [what, plant] : plants) {
        SCOPED_TRACE(what);
        fs::remove(cache_file(machine));
        plant(cache_file(machine));
        const auto doc = gate_forced();
        EXPECT_EQ(doc["p2p"], false) << doc.dump(2);
        EXPECT_EQ(doc["rule"], "cache_untrusted") << doc.dump(2);
        EXPECT_NE(doc["reason"].get<std::string>().find("PEERGATE_FORCE_P2P=1 refused"),
                  std::string::npos)
            << doc.dump(2);
    }
}

}  // namespace
}  // namespace peergate::test
