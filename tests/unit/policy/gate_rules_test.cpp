// SPDX-License-Identifier: Apache-2.0
// The P2P verdict, rule by rule (docs/gate-rules.md §1, §2, §4, §5).
#include "gate_test_support.hpp"
#include "policy/gate/gate.hpp"
#include "policy/gate/veto.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>

namespace peergate::policy::gate {
namespace {

using namespace peergate::test;  // NOLINT(google-build-using-namespace)
using model::IommuMode;

struct VerdictCase {
    const char* what;
    std::function<GateInput()> make;
    bool p2p;
    const char* rule;
    std::string reason;  // expected exactly when it starts with '=', else a substring
};

void check(const VerdictCase& c) {
    SCOPED_TRACE(c.what);
    const auto d = decide(c.make());
    EXPECT_EQ(d.p2p, c.p2p) << d.reason;
    EXPECT_EQ(d.rule, c.rule) << d.reason;
    const std::string& want = c.reason;
    if (!want.empty() && want.front() == '=') {
        EXPECT_EQ(d.reason, want.substr(1));
    } else {
        EXPECT_NE(d.reason.find(want), std::string::npos) << d.reason;
    }
    EXPECT_EQ(d.veto.empty(), d.p2p);
}

GateInput on_bridged(std::vector<int> ids) {
    return input(bridged_a100_4x(), gpus(std::move(ids)));
}

TEST(GateVerdict, PartiallyBridgedBoxKeepsP2pInsideEachBridge) {
    // clang-format off
    const VerdictCase cases[] = {
        {"[0,1]", [] { return on_bridged({0, 1}); }, true, "every_pair_nvlink", "=every selected pair is NVLink (GPUs 0, 1)"},
        {"[2,3]", [] { return on_bridged({2, 3}); }, true, "every_pair_nvlink", "GPUs 2, 3"},
        {"[1,0] order given", [] { return on_bridged({1, 0}); }, true, "every_pair_nvlink", ""},
        {"[0,2]", [] { return on_bridged({0, 2}); }, false, "every_pair_nvlink", "=GPU 0 to GPU 2 is SYS, not NVLink"},
        {"[0,3]", [] { return on_bridged({0, 3}); }, false, "every_pair_nvlink", "=GPU 0 to GPU 3 is SYS, not NVLink"},
        {"[1,2]", [] { return on_bridged({1, 2}); }, false, "every_pair_nvlink", "=GPU 1 to GPU 2 is SYS, not NVLink"},
        {"[1,3]", [] { return on_bridged({1, 3}); }, false, "every_pair_nvlink", "=GPU 1 to GPU 3 is SYS, not NVLink"},
        {"whole box", [] { return input(bridged_a100_4x()); }, false, "every_pair_nvlink", "=GPU 0 to GPU 2 is SYS, not NVLink"},
        {"--gpus all", [] { return input(bridged_a100_4x(), Selection::all()); }, false, "every_pair_nvlink", "GPU 0 to GPU 2"},
        {"uniform 8x B200", [] { return input(uniform_nvlink(8)); }, true, "every_pair_nvlink", "GPUs 0, 1, 2, 3, 4, 5, 6, 7"},
    };
    // clang-format on
    for (const auto& c : cases) {
        check(c);
    }
}

TEST(GateVerdict, IommuSuffixOnBareMetalOnlyAndNeverTheDecision) {
    const auto with_host = [](model::Topology t, model::HostFacts host) {
        auto in = input(std::move(t));
        in.host = std::move(host);
        return in;
    };
    const std::string pcie_veto = std::string(
        "=GPU 0 to GPU 1 is NODE, not NVLink (GPU 0 (NVIDIA RTX 6000 Ada "
        "Generation) has no NVLink connector)");
    const std::string ada = "NVIDIA RTX 6000 Ada Generation";
    // clang-format off
    const VerdictCase cases[] = {
        {"bare metal, translating", [&] { return with_host(pcie_box(2, ada), bare_metal(IommuMode::translating)); },
         false, "nvlink_name", pcie_veto + kIommuSuffix},
        {"hypervisor, translating", [&] { return with_host(pcie_box(2, ada), guest(IommuMode::translating)); },
         false, "nvlink_name", pcie_veto},
        {"bare metal, identity", [&] { return with_host(pcie_box(2, ada), bare_metal(IommuMode::identity)); },
         false, "nvlink_name", pcie_veto},
        // Issue 52: neither "bare metal" nor silence: the risk is unknown, and said so.
        {"cpuinfo unreadable", [&] {
             model::HostFacts h;
             h.iommu = IommuMode::translating;
             return with_host(pcie_box(2, ada), h);
         }, false, "nvlink_name", "=" + pcie_veto.substr(1) + kIommuUnknownHostSuffix},
        {"pair veto on bare metal", [&] {
             auto in = on_bridged({0, 2});
             in.host = bare_metal(IommuMode::translating);
             return in;
         }, false, "every_pair_nvlink", std::string("=GPU 0 to GPU 2 is SYS, not NVLink") + kIommuSuffix},
        {"name veto on bare metal", [&] {
             return with_host(pcie_box(2, "NVIDIA GeForce RTX 4090", "PHB"), bare_metal(IommuMode::translating));
         }, false, "datacenter_name", kIommuSuffix},
        {"NV#-confirmed selection is not vetoed by the IOMMU", [&] {
             return with_host(uniform_nvlink(8), bare_metal(IommuMode::translating));
         }, true, "every_pair_nvlink", ""},
        // Vetoes that say nothing about a PCIe path take no suffix.
        {"switched off on bare metal", [&] {
             auto in = with_host(pcie_box(2, ada), bare_metal(IommuMode::translating));
             in.env = env({{"PEERGATE_DISABLE_P2P", "1"}});
             return in;
         }, false, "disable_p2p", "=PEERGATE_DISABLE_P2P=1: P2P is switched off"},
        {"single GPU on bare metal", [&] {
             return with_host(uniform_nvlink(1, "NVIDIA H200"), bare_metal(IommuMode::translating));
         }, false, "single_gpu", "=only GPU 0 is selected: there is no peer"},
    };
    // clang-format on
    for (const auto& c : cases) {
        check(c);
    }
    auto guest_pair = on_bridged({0, 2});
    guest_pair.host = guest(IommuMode::translating);
    EXPECT_EQ(decide(guest_pair).veto.find("bare-metal"), std::string::npos);
}

TEST(GateVerdict, ControlPlanePrecedence) {
    const auto uniform_with = [](util::EnvMap e) {
        return input(uniform_nvlink(4), {}, std::move(e));
    };
    const auto l40s_with = [](util::EnvMap e) {
        return input(pcie_box(2, "NVIDIA L40S"), {}, std::move(e));
    };
    // clang-format off
    const VerdictCase cases[] = {
        {"DISABLE_P2P", [&] { return uniform_with(env({{"PEERGATE_DISABLE_P2P", "1"}})); },
         false, "disable_p2p", "=PEERGATE_DISABLE_P2P=1: P2P is switched off"},
        {"Unsloth alias of DISABLE_P2P", [&] { return uniform_with(env({{"UNSLOTH_DISABLE_DC_P2P", "1"}})); },
         false, "disable_p2p", "UNSLOTH_DISABLE_DC_P2P=1"},
        {"exact 1 only", [&] { return uniform_with(env({{"PEERGATE_DISABLE_P2P", "true"}})); },
         true, "every_pair_nvlink", ""},
        {"DISABLE_TUNING", [&] { return uniform_with(env({{"PEERGATE_DISABLE_TUNING", "1"}})); },
         false, "disable_tuning", "=PEERGATE_DISABLE_TUNING=1: no tuning at all"},
        {"Unsloth alias of DISABLE_TUNING", [&] { return uniform_with(env({{"UNSLOTH_DISABLE_DC_TUNING", "1"}})); },
         false, "disable_tuning", "UNSLOTH_DISABLE_DC_TUNING"},
        {"DISABLE_P2P beats FORCE", [&] {
             return l40s_with(env({{"PEERGATE_DISABLE_P2P", "1"}, {"PEERGATE_FORCE_P2P", "1"}}));
         }, false, "disable_p2p", ""},
        {"DISABLE_TUNING beats FORCE", [&] {
             return l40s_with(env({{"PEERGATE_DISABLE_TUNING", "1"}, {"PEERGATE_FORCE_P2P", "1"}}));
         }, false, "disable_tuning", ""},
        {"DISABLE_P2P is named before DISABLE_TUNING", [&] {
             return uniform_with(env({{"PEERGATE_DISABLE_TUNING", "1"}, {"PEERGATE_DISABLE_P2P", "1"}}));
         }, false, "disable_p2p", ""},
        {"the data-center gate comes before the GPU count", [&] {
             return input(uniform_nvlink(1, "NVIDIA GeForce RTX 4090"));
         }, false, "datacenter_name", "GPU 0 (NVIDIA GeForce RTX 4090)"},
        {"a failed probe beats FORCE", [&] {
             auto in = l40s_with(env({{"PEERGATE_FORCE_P2P", "1"}}));
             in.probe = ProbeVerdict{false, "GPU 0 to GPU 1 dropped 4 MiB"};
             return in;
         }, false, "probe_failed", "dropped 4 MiB"},
        {"the NVLink name gate comes before the matrix", [&] {
             GateInput in = l40s_with({});
             in.gpus = in.topology->gpus;
             in.topology.reset();
             in.topology_reason = "nvidia-smi: not found";
             return in;
         }, false, "nvlink_name", "GPU 0 (NVIDIA L40S) has no NVLink connector"},
        {"FORCE on a PCIe data-center box", [&] { return l40s_with(env({{"PEERGATE_FORCE_P2P", "1"}})); },
         true, "force_p2p", "PEERGATE_FORCE_P2P=1"},
        {"Unsloth alias of FORCE", [&] { return l40s_with(env({{"UNSLOTH_FORCE_DC_P2P", "1"}})); },
         true, "force_p2p", "UNSLOTH_FORCE_DC_P2P=1"},
        {"FORCE cannot beat an off-valued GGML_CUDA_P2P", [&] {
             return l40s_with(env({{"PEERGATE_FORCE_P2P", "1"}, {"GGML_CUDA_P2P", "0"}}));
         }, false, "user_opted_out", "GGML_CUDA_P2P='0' reads as off"},
        {"FORCE cannot beat the data-center gate", [&] {
             return input(pcie_box(2, "NVIDIA GeForce RTX 4090"), {}, env({{"PEERGATE_FORCE_P2P", "1"}}));
         }, false, "datacenter_name", "GPU 0 (NVIDIA GeForce RTX 4090) is not a data-center GPU"},
        {"FORCE cannot beat a single GPU", [&] {
             return input(uniform_nvlink(1, "NVIDIA H200"), {}, env({{"PEERGATE_FORCE_P2P", "1"}}));
         }, false, "single_gpu", "=only GPU 0 is selected: there is no peer"},
        {"FORCE over an unreadable topology", [&] {
             GateInput in = input(uniform_nvlink(2, "NVIDIA H100 80GB HBM3"), {}, env({{"PEERGATE_FORCE_P2P", "1"}}));
             in.gpus = in.topology->gpus;
             in.topology.reset();
             in.topology_reason = "nvidia-smi: not found";
             return in;
         }, true, "force_p2p", ""},
        {"unreadable topology without FORCE", [&] {
             GateInput in = input(uniform_nvlink(2, "NVIDIA H100 80GB HBM3"));
             in.gpus = in.topology->gpus;
             in.topology.reset();
             in.topology_reason = "neither NVML nor nvidia-smi topo -m gave a usable interconnect matrix";
             return in;
         }, false, "no_matrix", "=neither NVML nor nvidia-smi topo -m gave a usable interconnect matrix"},
        {"off-valued GGML_CUDA_P2P is an opt-out", [&] { return uniform_with(env({{"GGML_CUDA_P2P", " 0 "}})); },
         false, "user_opted_out", ""},
        {"truthy GGML_CUDA_P2P is no opt-out", [&] { return uniform_with(env({{"GGML_CUDA_P2P", "1"}})); },
         true, "every_pair_nvlink", ""},
    };
    // clang-format on
    for (const auto& c : cases) {
        check(c);
    }
}

TEST(GateVerdict, NameGatesAndTheBeyondRule) {
    const std::vector<std::vector<std::string>> two_pairs = {{"X", "NV2", "SYS", "SYS"},
                                                             {"NV2", "X", "SYS", "SYS"},
                                                             {"SYS", "SYS", "X", "NV2"},
                                                             {"SYS", "SYS", "NV2", "X"}};
    const auto v100 = [&] { return topology(two_pairs, repeat("Tesla V100-SXM2-32GB", 4)); };
    // clang-format off
    const VerdictCase cases[] = {
        {"mixed B200 + 4090", [] {
             return input(topology({{"X", "NODE"}, {"NODE", "X"}}, {"NVIDIA B200", "NVIDIA GeForce RTX 4090"}));
         }, false, "datacenter_name", "GPU 1 (NVIDIA GeForce RTX 4090)"},
        {"V100 pair over NVLink (not in the name list)", [&] { return input(v100(), gpus({0, 1})); },
         true, "every_pair_nvlink", ""},
        {"V100 pair over PCIe", [&] { return input(v100(), gpus({0, 2})); }, false, "datacenter_name",
         "=GPU 0 (Tesla V100-SXM2-32GB) is not a data-center GPU and has no NVLink to the other selected GPUs"},
        {"V100 whole box", [&] { return input(v100()); }, false, "every_pair_nvlink", "=GPU 0 to GPU 2 is SYS, not NVLink"},
        {"L40S pair", [] { return input(pcie_box(2, "NVIDIA L40S", "PIX")); }, false, "nvlink_name",
         "=GPU 0 to GPU 1 is PIX, not NVLink (GPU 0 (NVIDIA L40S) has no NVLink connector)"},
        {"unknown names", [] { return input(pcie_box(2, "")); }, false, "datacenter_name", "the name of GPU 0 is unknown"},
        {"unknown names but NVLinked", [] { return input(uniform_nvlink(2, "")); }, true, "every_pair_nvlink", ""},
        {"3 GPUs, only 0-1 linked", [] {
             return input(topology({{"X", "NV4", "PHB"}, {"NV4", "X", "PHB"}, {"PHB", "PHB", "X"}}, repeat("NVIDIA H100", 3)));
         }, false, "every_pair_nvlink", "=GPU 0 to GPU 2 is PHB, not NVLink"},
    };
    // clang-format on
    for (const auto& c : cases) {
        check(c);
    }
}

TEST(GateVerdict, IndexSpacesAndSelection) {
    const auto bridged_env = [](Selection s, util::EnvMap e) {
        return input(bridged_a100_4x(), std::move(s), std::move(e));
    };
    const auto unpinned = [](model::Topology t, std::vector<int> ids, util::EnvMap e = {}) {
        auto in = input(std::move(t), gpus(std::move(ids)), std::move(e));
        in.pin_selection = false;
        return in;
    };
    // clang-format off
    const VerdictCase cases[] = {
        {"unpinned order on a bridged box", [&] { return unpinned(bridged_a100_4x(), {0, 1}); },
         false, "order_not_pinned", "not pinned to PCI_BUS_ID and the box is not uniformly NVLinked"},
        {"unpinned order, inherited PCI_BUS_ID", [&] {
             return unpinned(bridged_a100_4x(), {0, 1}, env({{"CUDA_DEVICE_ORDER", "PCI_BUS_ID"}}));
         }, true, "every_pair_nvlink", ""},
        {"unpinned order on a uniform box", [&] { return unpinned(uniform_nvlink(8), {0, 5}); },
         true, "every_pair_nvlink", ""},
        {"pinned by the launch", [&] { return on_bridged({0, 1}); }, true, "every_pair_nvlink", ""},
        {"numeric mask with PCI_BUS_ID filters", [&] {
             return bridged_env({}, env({{"CUDA_VISIBLE_DEVICES", "0,1"}, {"CUDA_DEVICE_ORDER", "PCI_BUS_ID"}}));
         }, true, "every_pair_nvlink", "GPUs 0, 1"},
        {"numeric mask without PCI_BUS_ID: every GPU must qualify", [&] {
             return bridged_env({}, env({{"CUDA_VISIBLE_DEVICES", "0,1"}}));
         }, false, "every_pair_nvlink", "GPU 0 to GPU 2 is SYS"},
        {"UUID mask: every GPU must qualify", [&] {
             return bridged_env({}, env({{"CUDA_VISIBLE_DEVICES", "GPU-aaaa,GPU-bbbb"}, {"CUDA_DEVICE_ORDER", "PCI_BUS_ID"}}));
         }, false, "every_pair_nvlink", "GPU 0 to GPU 2 is SYS"},
        {"MIG mask: every GPU must qualify", [&] {
             return bridged_env({}, env({{"CUDA_VISIBLE_DEVICES", "MIG-1234"}, {"CUDA_DEVICE_ORDER", "PCI_BUS_ID"}}));
         }, false, "every_pair_nvlink", "GPU 0 to GPU 2 is SYS"},
        {"empty mask: no GPU", [&] { return bridged_env({}, env({{"CUDA_VISIBLE_DEVICES", ""}})); },
         false, "single_gpu", "no GPU is selected"},
        {"masked to one GPU", [&] {
             return bridged_env({}, env({{"CUDA_VISIBLE_DEVICES", "2"}, {"CUDA_DEVICE_ORDER", "PCI_BUS_ID"}}));
         }, false, "single_gpu", "only GPU 2"},
        {"explicit selection beats the inherited mask", [&] {
             return bridged_env(gpus({0, 1}), env({{"CUDA_VISIBLE_DEVICES", "2,3"}}));
         }, true, "every_pair_nvlink", "GPUs 0, 1"},
        {"id absent from the host", [&] { return on_bridged({0, 9}); }, false, "gpu_absent",
         "=GPU 9 is not on this host (its GPUs: 0, 1, 2, 3)"},
        {"numeric mask names an absent id", [&] {
             return bridged_env({}, env({{"CUDA_VISIBLE_DEVICES", "0,7"}, {"CUDA_DEVICE_ORDER", "PCI_BUS_ID"}}));
         }, false, "gpu_absent", "GPU 7 is not on this host"},
        {"id listed by name but absent from the matrix", [&] {
             auto in = on_bridged({0, 4});
             in.gpus = in.topology->gpus;
             in.gpus.push_back(model::Gpu{.index = 4, .name = "NVIDIA A100-SXM4-80GB"});
             return in;
         }, false, "gpu_absent", "=GPU 4 is absent from the interconnect matrix"},
        {"NVML matrix, CUDA-ordinal mask, bridged: whole box", [&] {
             auto t = bridged_a100_4x();
             t.source = model::TopologySource::nvml;
             return input(std::move(t), {}, env({{"CUDA_VISIBLE_DEVICES", "0,1"}}));
         }, false, "every_pair_nvlink", "GPU 0 to GPU 2"},
        {"NVML matrix, CUDA-ordinal mask, uniform box", [&] {
             auto t = uniform_nvlink(4);
             t.source = model::TopologySource::nvml;
             return input(std::move(t), {}, env({{"CUDA_VISIBLE_DEVICES", "3,1"}}));
         }, true, "every_pair_nvlink", ""},
    };
    // clang-format on
    for (const auto& c : cases) {
        check(c);
    }
}

// The node's state is its own answer (issue 52): a stronger P2P rule may decide, and the
// decision still says that no CUDA program can start, with the driver's words and the remedy.
TEST(GateVerdict, TheNodeIsUnusableWhateverRuleDecidedP2p) {
    auto in = input(uniform_nvlink(8), Selection::all(), env({{"PEERGATE_DISABLE_P2P", "1"}}));
    EXPECT_TRUE(decide(in).node.usable);
    EXPECT_EQ(decide(in).node, NodeUsability{});
    in.cuda_init_failure =
        CudaInitFailure{803, "cuInit failed: 803 CUDA_ERROR_SYSTEM_DRIVER_MISMATCH"};
    const auto d = decide(in);
    EXPECT_EQ(d.rule, "disable_p2p");
    EXPECT_FALSE(d.node.usable);
    EXPECT_EQ(d.node.rule, "cuda_unavailable");
    EXPECT_NE(d.node.reason.find("(cuInit failed: 803 CUDA_ERROR_SYSTEM_DRIVER_MISMATCH), so no "
                                 "CUDA program can start here; the CUDA driver library and the "
                                 "kernel module are different versions"),
              std::string::npos)
        << d.node.reason;
    in.env = env({});
    const auto vetoed = decide(in);
    EXPECT_EQ(vetoed.rule, "cuda_unavailable");
    EXPECT_EQ(vetoed.reason, d.node.reason);  // one wording for the veto and the node
}

TEST(GateVerdict, FailuresProbesAndIdentityJoin) {
    const auto pci = [](const char* text) { return model::PciAddress::parse(text).value(); };
    const auto with_pci = [&] {
        auto t = bridged_a100_4x();
        const char* ids[] = {
            "00000000:07:00.0", "00000000:0B:00.0", "00000000:48:00.0", "00000000:4C:00.0"};
        for (std::size_t i = 0; i < 4; ++i) {
            t.gpus[i].pci = pci(ids[i]);
        }
        return t;
    };
    // clang-format off
    const VerdictCase cases[] = {
        {"a source failed while deciding", [] {
             auto in = input(uniform_nvlink(8));
             in.failures.push_back("the NVML worker crashed");
             return in;
         }, false, "decision_failed", "could not decide, so P2P stays off: the NVML worker crashed"},
        {"CUDA installed but not initialising vetoes even NVLink, and FORCE cannot lift it", [] {
             auto in = input(uniform_nvlink(8), Selection::all(), env({{"PEERGATE_FORCE_P2P", "1"}}));
             in.cuda_init_failure = CudaInitFailure{802, "cuInit failed: 802 CUDA_ERROR_SYSTEM_NOT_READY"};
             return in;
         }, false, "cuda_unavailable", "does not initialise (cuInit failed: 802 CUDA_ERROR_SYSTEM_NOT_READY), so no CUDA program can start here; the NVSwitch fabric manager has not registered the GPUs"},
        {"a child that would see no CUDA device is doubt, not the index rules", [] {
             auto in = input(uniform_nvlink(2));
             in.cuda_init_failure = CudaInitFailure{100, "cuInit failed: 100 CUDA_ERROR_NO_DEVICE"};
             return in;
         }, false, "cuda_unavailable", "check CUDA_VISIBLE_DEVICES"},
        {"a passing probe allows a PCIe data-center pair", [] {
             auto in = input(pcie_box(2, "NVIDIA L40S"));
             in.probe = ProbeVerdict{true, "12 cells intact"};
             return in;
         }, true, "probe_passed", "12 cells intact"},
        {"a failed probe vetoes even NVLink", [] {
             auto in = input(uniform_nvlink(2));
             in.probe = ProbeVerdict{false, "GPU 0 to GPU 1 dropped 4 MiB"};
             return in;
         }, false, "probe_failed", "dropped 4 MiB"},
        {"a cached loss on a selected pair beats FORCE", [] {
             auto in = input(pcie_box(3, "NVIDIA L40S"), gpus({0, 2}), env({{"PEERGATE_FORCE_P2P", "1"}}));
             in.probe = ProbeVerdict{.pair_level = true, .lost_pairs = {{2, 0}}};
             return in;
         }, false, "probe_failed", "=the integrity probe lost data from GPU 2 to GPU 0 on this boot (the verdict cache's run)"},
        {"a cached loss vetoes even NVLink", [] {
             auto in = input(uniform_nvlink(4), gpus({0, 1}));
             in.probe = ProbeVerdict{.pair_level = true, .lost_pairs = {{0, 1}}};
             return in;
         }, false, "probe_failed", "GPU 0 to GPU 1"},
        {"a cached loss elsewhere says nothing about this selection", [] {
             auto in = input(pcie_box(3, "NVIDIA L40S"), gpus({0, 1}), env({{"PEERGATE_FORCE_P2P", "1"}}));
             in.probe = ProbeVerdict{.pair_level = true, .lost_pairs = {{0, 2}, {2, 1}}};
             return in;
         }, true, "force_p2p", ""},
        {"a verdict cache that is doubt refuses FORCE (docs/security.md)", [] {
             auto in = input(pcie_box(2, "NVIDIA L40S"), gpus({0, 1}), env({{"PEERGATE_FORCE_P2P", "1"}}));
             in.cache_doubt = "the verdict cache cannot be trusted: it is a FIFO";
             return in;
         }, false, "cache_untrusted", "=PEERGATE_FORCE_P2P=1 refused: the verdict cache cannot be trusted: it is a FIFO"},
        {"without FORCE a doubtful cache is only no verdict", [] {
             auto in = input(uniform_nvlink(2), gpus({0, 1}));
             in.cache_doubt = "the verdict cache cannot be trusted: it is a FIFO";
             return in;
         }, true, "every_pair_nvlink", ""},
        {"identity join gates the child's GPUs", [&] {
             auto in = input(with_pci());
             in.child_visible = std::vector<model::PciAddress>{pci("0000:48:00.0"), pci("0000:4c:00.0")};
             return in;
         }, true, "every_pair_nvlink", "GPUs 2, 3"},
        {"identity join: a GPU missing from the matrix", [&] {
             auto in = input(with_pci());
             in.child_visible = std::vector<model::PciAddress>{pci("0000:07:00.0"), pci("0000:99:00.0")};
             return in;
         }, false, "gpu_absent", "00000000:99:00.0"},
        // The child's driver stops at an index it lacks: it enumerates 2 and 3 of "2,3,9".
        {"identity join: --gpus names a GPU the host lacks", [&] {
             auto in = input(with_pci(), gpus({2, 3, 9}));
             in.child_visible = std::vector<model::PciAddress>{pci("0000:48:00.0"), pci("0000:4c:00.0")};
             return in;
         }, false, "gpu_absent", "GPU 9 is not on this host (its GPUs: 0, 1, 2, 3)"},
        {"identity join: a pinned CUDA_VISIBLE_DEVICES names a GPU the host lacks", [&] {
             auto in = input(with_pci(), Selection::inherit(),
                             env({{"CUDA_DEVICE_ORDER", "PCI_BUS_ID"},
                                  {"CUDA_VISIBLE_DEVICES", "2,3,7"}}));
             in.child_visible = std::vector<model::PciAddress>{pci("0000:48:00.0"), pci("0000:4c:00.0")};
             return in;
         }, false, "gpu_absent", "GPU 7 is not on this host"},
    };
    // clang-format on
    for (const auto& c : cases) {
        check(c);
    }
}

}  // namespace
}  // namespace peergate::policy::gate
