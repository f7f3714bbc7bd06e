// SPDX-License-Identifier: Apache-2.0
// gate and exec against stand-in nvidia-smi scripts and host-root fixtures: argv, exit
// status, the IOMMU wording, usage errors, and a decision that fails without blocking.
#include "gate_e2e_support.hpp"
#include "sources/host/memory_policy.hpp"
#include "sources/host/sched_affinity.hpp"
#include "util/cpu_list.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <tuple>
#include <utility>

namespace peergate::e2e {
namespace {

std::vector<std::string> with_seams(const std::string& smi,
                                    const std::string& host,
                                    std::vector<std::string> rest) {
    std::vector<std::string> args = {"--nvml-lib",
                                     "/nonexistent/libnvidia-ml.so.1",
                                     "--cuda-lib",
                                     "/nonexistent/libcuda.so.1",
                                     "--nvidia-smi",
                                     kScripts + "/" + smi,
                                     "--host-root",
                                     kFixtures + "/host/" + host};
    args.insert(args.end(), rest.begin(), rest.end());
    return args;
}

TEST(ExecE2e, ArgvIsPassedUntouchedAndTheExitStatusIsTheChilds) {
    const auto r = peergate(
        with_seams("smi_bridged_a100_4x.sh",
                   "vm-dma",
                   {"exec", "--gpus", "0,1", "--", "printf", "%s|", "a b", "$HOME", "*", "-q"}));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "a b|$HOME|*|-q|");
    const auto status = peergate(
        with_seams("smi_bridged_a100_4x.sh", "vm-dma", {"exec", "--", "sh", "-c", "exit 7"}));
    EXPECT_EQ(status.exit_code, 7);
}

// One line for the decision, then one per warning (here: no CUDA driver for the identity
// join); -q prints none of them.
TEST(ExecE2e, QuietLogsNothing) {
    const auto loud =
        peergate(with_seams("smi_bridged_a100_4x.sh", "vm-dma", {"exec", "--", "true"}));
    EXPECT_TRUE(loud.err.starts_with("peergate: P2P vetoed")) << loud.err;
    EXPECT_NE(loud.err.find("\npeergate: warning: identity join not used"), std::string::npos)
        << loud.err;
    EXPECT_EQ(std::count(loud.err.begin(), loud.err.end(), '\n'), 2);
    const auto quiet =
        peergate(with_seams("smi_bridged_a100_4x.sh", "vm-dma", {"-q", "exec", "--", "true"}));
    EXPECT_EQ(quiet.exit_code, 0);
    EXPECT_EQ(quiet.err, "");
}

TEST(ExecE2e, CommandThatCannotStartIsExitTwo) {
    const auto missing = peergate(
        with_seams("smi_bridged_a100_4x.sh", "vm-dma", {"exec", "--", "no-such-program-xyz"}));
    EXPECT_EQ(missing.exit_code, 2);
    EXPECT_NE(missing.err.find("cannot run 'no-such-program-xyz'"), std::string::npos)
        << missing.err;
    const auto not_exec =
        peergate(with_seams("smi_bridged_a100_4x.sh",
                            "vm-dma",
                            {"exec", "--", kFixtures + "/topo_m/unsloth_TOPO_BRIDGED_4X.txt"}));
    EXPECT_EQ(not_exec.exit_code, 2);
    const auto none = peergate(with_seams("smi_bridged_a100_4x.sh", "vm-dma", {"exec"}));
    EXPECT_EQ(none.exit_code, 2);
    EXPECT_NE(none.err.find("exec needs a command"), std::string::npos) << none.err;
}

TEST(ExecE2e, UsageErrorsAreExitTwo) {
    const std::vector<std::vector<std::string>> bad = {
        {"gate", "--gpus", "0,x"},
        {"gate", "--gpus", ""},
        {"gate", "--gpus", "1,1"},
        {"gate", "--for", "tensorrt"},
        {"gate", "--format", "yaml"},
        {"exec", "--gpus", "-1", "--", "true"},
        {"exec", "--for", "x", "--", "true"},
        {"gate", "--gpus", "0,9"},  // a GPU the host lacks (issue 52)
        {"exec", "--gpus", "0,9", "--", "sh", "-c", "echo ran"},
    };
    for (const auto& args : bad) {
        SCOPED_TRACE(util::join(args, " "));
        const auto r = peergate(with_seams("smi_bridged_a100_4x.sh", "vm-dma", args));
        EXPECT_EQ(r.exit_code, 2) << r.err;
        EXPECT_FALSE(r.err.empty());
        EXPECT_EQ(r.out, "");
    }
}

// Where the host's GPUs cannot be read at all, no id can be called absent: that is doubt, and
// the gate fails closed as it always did (a veto; exec starts the command with P2P off).
TEST(ExecE2e, AnIdOnAHostWhoseGpusCannotBeReadIsDoubtNotAUsageError) {
    const auto gate = peergate(with_seams("smi_broken.sh", "vm-dma", {"gate", "--gpus", "0,9"}));
    EXPECT_EQ(gate.exit_code, 1) << gate.err;
    EXPECT_EQ(gate.out.rfind("P2P vetoed: ", 0), 0U) << gate.out;
    const auto exec =
        peergate(with_seams("smi_broken.sh", "vm-dma", {"exec", "--gpus", "0,9", "--", "env"}));
    EXPECT_EQ(exec.exit_code, 0) << exec.err;
    EXPECT_EQ(parse_env_output(exec.out).count("GGML_CUDA_P2P"), 0U);
}

TEST(ExecE2e, IommuSuffixOnBareMetalNotInAGuest) {
    const std::string suffix =
        "; bare-metal Linux with a translating IOMMU, where CUDA does not support PCIe peer copies "
        "at all";
    const auto bare =
        peergate(with_seams("smi_pcie_rtx6000ada_2x.sh", "bare-metal-dma", {"gate", "--json"}));
    EXPECT_EQ(bare.exit_code, 1) << bare.err;
    const auto bare_doc = nlohmann::ordered_json::parse(bare.out);
    EXPECT_EQ(bare_doc["iommu"], "translating");
    EXPECT_TRUE(bare_doc["veto"].get<std::string>().ends_with(suffix)) << bare_doc["veto"];
    EXPECT_EQ(bare_doc["topology_source"], "nvidia-smi");

    const auto vm = peergate(with_seams("smi_pcie_rtx6000ada_2x.sh", "vm-dma", {"gate", "--json"}));
    const auto vm_doc = nlohmann::ordered_json::parse(vm.out);
    EXPECT_EQ(vm_doc["iommu"], "translating");
    EXPECT_EQ(vm_doc["veto"],
              "GPU 0 to GPU 1 is NODE, not NVLink (GPU 0 (NVIDIA RTX 6000 Ada Generation) has no "
              "NVLink connector)");

    const auto nvlinked =
        peergate(with_seams("smi_bridged_a100_4x.sh", "bare-metal-dma", {"gate", "--gpus", "2,3"}));
    EXPECT_EQ(nvlinked.exit_code, 0)
        << nvlinked.out;  // an NV# selection is not vetoed by the IOMMU
}

TEST(ExecE2e, ABrokenSourceNeverBlocksTheLaunch) {
    auto parent = base_env();
    parent.set("GGML_CUDA_P2P", "0");
    const auto r = peergate(
        with_seams("smi_broken.sh", "vm-dma", {"exec", "--gpus", "0,1", "--", "env"}), parent);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto child = parse_env_output(r.out);
    EXPECT_EQ(child.count("GGML_CUDA_P2P"), 0U);
    EXPECT_EQ(child.at("CUDA_VISIBLE_DEVICES"), "0,1");
    EXPECT_NE(r.err.find("P2P vetoed"), std::string::npos) << r.err;

    const auto gate = peergate(with_seams("smi_broken.sh", "vm-dma", {"gate", "--json"}));
    EXPECT_EQ(gate.exit_code, 1);
    const auto doc = nlohmann::ordered_json::parse(gate.out);
    EXPECT_EQ(doc["topology_source"], "none");
    EXPECT_FALSE(doc["p2p"]);

    auto forced = base_env();
    forced.set("PEERGATE_FORCE_P2P", "1");
    const auto no_names =
        peergate(with_seams("smi_broken.sh", "vm-dma", {"gate", "--gpus", "0,1"}), forced);
    EXPECT_EQ(no_names.exit_code, 1) << no_names.out;  // FORCE needs known data-center names
}

TEST(ExecE2e, TextFormatSaysWhatAndWhy) {
    const auto r =
        peergate(with_seams("smi_bridged_a100_4x.sh", "vm-dma", {"gate", "--gpus", "0,2"}));
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(
        r.out.rfind("P2P vetoed: GPU 0 to GPU 2 is SYS, not NVLink [rule every_pair_nvlink]\n", 0),
        0U)
        << r.out;
    EXPECT_NE(r.out.find("set CUDA_VISIBLE_DEVICES=0,2: "), std::string::npos);
    const auto json = peergate(
        with_seams("smi_bridged_a100_4x.sh", "vm-dma", {"--json", "gate", "--gpus", "0,1"}));
    EXPECT_EQ(json.exit_code, 0);
    EXPECT_EQ(nlohmann::ordered_json::parse(json.out)["set"]["GGML_CUDA_P2P"], "1");
}

// The CPUs of `allowed` that lie in [lo, hi] or [lo2, hi2], as the kernel's list syntax.
std::string allowed_within(const std::vector<int>& allowed, int lo, int hi, int lo2, int hi2) {
    std::vector<int> kept;
    for (int cpu : allowed) {
        if ((cpu >= lo && cpu <= hi) || (cpu >= lo2 && cpu <= hi2)) {
            kept.push_back(cpu);
        }
    }
    return util::format_cpu_list(kept);
}

// --bind-cpus: the command runs on the CPUs near its GPUs that this process may use (the
// simulated HGX puts GPUs 0-3 near CPUs 0-47,96-143 and 4-7 near 48-95,144-191).
// --place K: the command gets the best K GPUs, as `place --size K --count 1` finds them.
TEST(ExecE2e, PlaceRunsTheCommandOnTheBestGroupOfKAndGateSaysSo) {
    const std::vector<std::string> show{"--", "sh", "-c", "echo $CUDA_VISIBLE_DEVICES"};
    auto args = std::vector<std::string>{
        "--simulate", kFixtures + "/machines/identity-mixed-4x.json", "exec", "--place", "2"};
    args.insert(args.end(), show.begin(), show.end());
    const auto mixed = peergate(args);  // GPUs 2 and 3 are the NVLinked pair
    EXPECT_EQ(mixed.exit_code, 0) << mixed.err;
    EXPECT_EQ(mixed.out, "2,3\n");
    EXPECT_TRUE(mixed.err.starts_with("peergate: placed on GPUs 2,3: weakest link NV12 "))
        << mixed.err;
    EXPECT_NE(mixed.err.find("\npeergate: P2P allowed"), std::string::npos) << mixed.err;
    args = {"--simulate", "hgx-b200-8x", "-q", "exec", "--place", "4", "--gpus", "1,2,5,6,7"};
    args.insert(args.end(), show.begin(), show.end());
    const auto among = peergate(args);  // no four of these share a NUMA node
    EXPECT_EQ(among.out, "1,2,5,6\n");
    EXPECT_EQ(among.err, "");
    // Without --gpus, an inherited CUDA_VISIBLE_DEVICES (an allocation) holds the candidates:
    // CUDA ordinals 2,3 are nvidia-smi GPUs 0,1 there, so the NVLinked 2,3 are not the job's.
    auto allocated = base_env();
    allocated.set("CUDA_VISIBLE_DEVICES", "2,3");
    args = {"--simulate", kFixtures + "/machines/identity-mixed-4x.json", "exec", "--place", "2"};
    args.insert(args.end(), show.begin(), show.end());
    const auto inside = peergate(args, allocated);
    EXPECT_EQ(inside.out, "0,1\n") << inside.err;
    allocated.set("CUDA_VISIBLE_DEVICES", "7");
    const auto nothing = peergate(args, allocated);
    EXPECT_EQ(nothing.exit_code, 2);
    EXPECT_NE(nothing.err.find("names no GPU of this host"), std::string::npos) << nothing.err;
    // gate takes --place too: what to eval for the best group.
    const auto shell = peergate({"--simulate",
                                 kFixtures + "/machines/identity-mixed-4x.json",
                                 "gate",
                                 "--place",
                                 "2",
                                 "--format",
                                 "shell"});
    EXPECT_EQ(shell.exit_code, 0) << shell.err;
    EXPECT_NE(shell.out.find("export CUDA_VISIBLE_DEVICES='2,3'\n"), std::string::npos)
        << shell.out;
    const auto too_many =
        peergate({"--simulate", "hgx-b200-8x", "exec", "--place", "9", "--", "true"});
    EXPECT_EQ(too_many.exit_code, 2);
    EXPECT_NE(too_many.err.find("--place: impossible"), std::string::npos) << too_many.err;
}

TEST(ExecE2e, BindCpusRunsTheCommandNearItsGpus) {
    const auto allowed = sources::host::allowed_cpus();
    ASSERT_TRUE(allowed.has_value());
    for (const auto& [gpus, lo, hi, lo2, hi2] :
         {std::tuple("0,1", 0, 47, 96, 143), std::tuple("4,5", 48, 95, 144, 191)}) {
        const auto r = peergate({"--simulate",
                                 "hgx-b200-8x",
                                 "exec",
                                 "--gpus",
                                 gpus,
                                 "--bind-cpus",
                                 "--",
                                 "grep",
                                 "Cpus_allowed_list",
                                 "/proc/self/status"});
        EXPECT_EQ(r.exit_code, 0) << r.err;
        const std::string near = allowed_within(*allowed, lo, hi, lo2, hi2);
        const std::string expected = near.empty() ? util::format_cpu_list(*allowed) : near;
        EXPECT_EQ(r.out, "Cpus_allowed_list:\t" + expected + "\n") << r.err;
        EXPECT_NE(r.err.find(near.empty() ? "peergate: CPUs not bound: none of the CPUs near"
                                          : "peergate: bound to CPUs " + near),
                  std::string::npos)
            << r.err;
    }
}

// --bind-memory: the command allocates from its GPUs' NUMA node where this process may (the
// simulated HGX puts GPUs 0-3 on node 0 and 4-7 on node 1). The kernel shows the command's
// policy in /proc/self/numa_maps ("bind:0"; "default" where it was left alone).
TEST(ExecE2e, BindMemoryGivesTheCommandItsGpusNode) {
    const auto allowed = sources::host::allowed_memory_nodes();
    if (!allowed) {
        GTEST_SKIP() << "this kernel has no NUMA support: " << allowed.error().message;
    }
    for (const auto& [gpus, node] : {std::pair("0,1", 0), std::pair("4,5", 1)}) {
        const auto r = peergate({"--simulate",
                                 "hgx-b200-8x",
                                 "exec",
                                 "--gpus",
                                 gpus,
                                 "--bind-memory",
                                 "--",
                                 "grep",
                                 "-m1",
                                 "-o",
                                 "-E",
                                 " (default|bind:[0-9,-]+) ",
                                 "/proc/self/numa_maps"});
        EXPECT_EQ(r.exit_code, 0) << r.err;
        const bool may = std::find(allowed->begin(), allowed->end(), node) != allowed->end();
        const std::string n = std::to_string(node);
        EXPECT_EQ(r.out, may ? " bind:" + n + " \n" : std::string(" default \n")) << r.err;
        EXPECT_NE(
            r.err.find(may ? "peergate: memory bound to NUMA node " + n + ", near GPUs " + gpus
                           : "peergate: memory not bound: NUMA node " + n + " of GPUs " + gpus +
                                 " is not allowed to this process"),
            std::string::npos)
            << r.err;
    }
}

}  // namespace
}  // namespace peergate::e2e
