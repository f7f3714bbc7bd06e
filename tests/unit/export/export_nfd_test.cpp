// SPDX-License-Identifier: Apache-2.0
// Every line NFD reads is a comment, a directive written exactly, or a label Kubernetes
// accepts under our namespace (docs/ecosystem.md §1.2-1.4).
#include "export_facts_fixture.hpp"
#include "report/exports/nfd.hpp"
#include "support/assessed_facts.hpp"
#include "util/strings.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <regex>

namespace peergate::report::exports {
namespace {

using test::facts_from_topo_m;

// Labels by name (without the namespace); fails the test on any line NFD would reject.
std::map<std::string, std::string> labels_of(const std::string& text) {
    const std::regex name_re("^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$");
    std::map<std::string, std::string> labels;
    EXPECT_LT(text.size(), 65536U);
    for (const auto line : util::split_lines(text)) {
        const std::string s(line);
        if (s.starts_with("# +")) {
            EXPECT_TRUE(s.starts_with("# +expiry-time=")) << s;
            continue;
        }
        if (s.starts_with("#")) {
            continue;
        }
        EXPECT_TRUE(s.starts_with(kNfdNamespace)) << s;
        const auto eq = s.find('=');
        const std::string name = s.substr(kNfdNamespace.size(), eq - kNfdNamespace.size());
        const std::string value = s.substr(eq + 1);
        EXPECT_LE(name.size(), 63U);
        EXPECT_TRUE(std::regex_match(name, name_re)) << name;
        EXPECT_LE(value.size(), 63U);
        EXPECT_TRUE(value.empty() || std::regex_match(value, name_re)) << s;
        EXPECT_TRUE(labels.emplace(name, value).second) << "twice: " << name;
    }
    return labels;
}

TEST(ExportNfd, NvswitchNodeWithEveryPairNvlinked) {
    auto facts = facts_from_topo_m("ml-engineering-network_8xH100_NV18_compacted.txt");
    facts.doctor.pairs[0].p2p_gbps = 389.24;
    facts.doctor.pairs[1].p2p_gbps = 401.0;
    const auto labels = labels_of(export_nfd(test::assessed(facts)));
    EXPECT_EQ(labels.at("p2p.status"), "ok");
    EXPECT_EQ(labels.at("p2p.rule"), "every_pair_nvlink");
    EXPECT_EQ(labels.at("p2p.integrity"), "untested");
    EXPECT_EQ(labels.at("p2p.min-bw-mbytes-per-second"), "389240");
    EXPECT_EQ(labels.at("p2p.min-bw-gbps"), "389.2");  // deprecated, kept for one release
    EXPECT_EQ(labels.at("topology"), "nvlink-all");
    EXPECT_EQ(labels.at("nvlink.present"), "true");
    EXPECT_EQ(labels.at("nvlink.islands"), "1");
    EXPECT_EQ(labels.at("nvlink.largest-island-size"), "8");
    EXPECT_EQ(labels.at("nvlink.largest-island-gpus"), "0_1_2_3_4_5_6_7");
    EXPECT_EQ(labels.at("nvlink.min-links"), "18");
    EXPECT_EQ(labels.at("gpu.count"), "8");
    EXPECT_EQ(labels.at("doctor.verdict"), "healthy");
}

// No label changes from one run to the next on an unchanged node (issue 35, item 3): the
// expiry directive carries freshness, and a timestamp label would update the Node object at
// every run in every cluster. --nfd-timestamp brings it back for who relies on it.
TEST(ExportNfd, TimestampLabelOnlyWhenAskedFor) {
    auto facts = facts_from_topo_m("ml-engineering-network_8xH100_NV18_compacted.txt");
    const auto first = export_nfd(test::assessed(facts));
    EXPECT_EQ(labels_of(first).count("timestamp"), 0U);
    facts.run.finished_unix += 600;
    EXPECT_EQ(labels_of(export_nfd(test::assessed(facts))), labels_of(first));
    facts.run.nfd_timestamp = true;
    EXPECT_EQ(labels_of(export_nfd(test::assessed(facts))).at("timestamp"), "1795943400");
}

// Kubernetes compares Gt and Lt as integers (a decimal never matches): the rate is a whole
// number of MB/s (10^6 bytes per second), rounded to the nearest.
TEST(ExportNfd, SlowestPairInWholeMegabytesPerSecond) {
    auto facts = facts_from_topo_m("unsloth_TOPO_PCIE_2X.txt");
    facts.doctor.pairs[0].p2p_gbps = 23.9;
    facts.doctor.pairs[1].p2p_gbps = 24.7;
    const auto labels = labels_of(export_nfd(test::assessed(facts)));
    EXPECT_EQ(labels.at("p2p.min-bw-mbytes-per-second"), "23900");
    EXPECT_EQ(labels.at("p2p.min-bw-gbps"), "23.9");
    facts.doctor.pairs[0].p2p_gbps = 0.0004;
    EXPECT_EQ(labels_of(export_nfd(test::assessed(facts))).at("p2p.min-bw-mbytes-per-second"), "0");
}

TEST(ExportNfd, BridgedPairsAndPcie) {
    auto bridged =
        labels_of(export_nfd(test::assessed(facts_from_topo_m("unsloth_TOPO_BRIDGED_4X.txt"))));
    EXPECT_EQ(bridged.at("topology"), "nvlink-partial");
    EXPECT_EQ(bridged.at("nvlink.islands"), "2");
    EXPECT_EQ(bridged.at("nvlink.largest-island-size"), "2");
    EXPECT_EQ(bridged.at("nvlink.largest-island-gpus"), "0_1");  // the first of two alike
    EXPECT_EQ(bridged.at("nvlink.min-links"), "0");
    auto facts = facts_from_topo_m("unsloth_TOPO_PCIE_2X.txt");
    facts.gate = {.p2p = false, .rule = "pcie_iommu", .reason = "vetoed"};
    facts.doctor.probe = model::ProbeResult{.outcome = model::ProbeOutcome::fail};
    auto pcie = labels_of(export_nfd(test::assessed(facts)));
    EXPECT_EQ(pcie.at("topology"), "pcie");
    EXPECT_EQ(pcie.at("nvlink.present"), "false");
    // A GPU alone is no NVLink island: a PCIe node counts none (it counted one per GPU).
    EXPECT_EQ(pcie.at("nvlink.islands"), "0");
    EXPECT_EQ(pcie.at("nvlink.largest-island-size"), "0");
    EXPECT_EQ(pcie.count("nvlink.largest-island-gpus"), 0U);
    EXPECT_EQ(pcie.at("p2p.status"), "vetoed");
    EXPECT_EQ(pcie.at("p2p.integrity"), "fail");
    EXPECT_EQ(pcie.at("p2p.integrity-source"), "this_run");
    EXPECT_EQ(pcie.count("p2p.min-bw-gbps"), 0U);
    EXPECT_EQ(pcie.count("p2p.min-bw-mbytes-per-second"), 0U);
}

// Issue 52: the cached verdict the gate acts on is the integrity label's, not "untested".
TEST(ExportNfd, TheCachedVerdictIsTheIntegrityWhereNoProbeRanNow) {
    auto facts = facts_from_topo_m("unsloth_TOPO_PCIE_2X.txt");
    facts.gate = {.p2p = false, .rule = "probe_failed", .reason = "data lost"};
    facts.doctor.host.iommu = model::IommuMode::translating;
    facts.doctor.host.hypervisor = false;
    auto labels = labels_of(export_nfd(test::assessed(facts)));
    EXPECT_EQ(labels.at("p2p.integrity"), "untested");
    EXPECT_EQ(labels.at("p2p.integrity-source"), "none");
    facts.doctor.cached_probe = model::ProbeResult{.outcome = model::ProbeOutcome::fail};
    labels = labels_of(export_nfd(test::assessed(facts)));
    EXPECT_EQ(labels.at("p2p.integrity"), "fail");
    EXPECT_EQ(labels.at("p2p.integrity-source"), "cached");
    EXPECT_EQ(labels.at("p2p.silent-drop-risk"), "present");
}

TEST(ExportNfd, OnlyTheExaminedGpus) {
    auto facts = facts_from_topo_m("unsloth_TOPO_BRIDGED_4X.txt");
    facts.doctor.selection = {2, 3};
    const auto labels = labels_of(export_nfd(test::assessed(facts)));
    EXPECT_EQ(labels.at("gpu.count"), "2");
    EXPECT_EQ(labels.at("topology"), "nvlink-all");
    EXPECT_EQ(labels.at("nvlink.min-links"), "12");
    EXPECT_EQ(labels.at("nvlink.islands"), "1");
    EXPECT_EQ(labels.at("nvlink.largest-island-gpus"), "2_3");
}

// A GPU list a label value cannot hold (over 63 characters) is left out, never cut short.
TEST(ExportNfd, AnIslandTooLargeToListKeepsItsSize) {
    ExportFacts facts;
    model::Topology topology;
    constexpr int kGpus = 32;  // "0_1_..._31" is 85 characters
    for (int i = 0; i < kGpus; ++i) {
        topology.gpus.push_back(model::Gpu{.index = i});
        topology.matrix.emplace_back(kGpus, model::LinkLabel::nvlink(18));
        topology.matrix.back()[static_cast<std::size_t>(i)] = model::LinkLabel::self();
    }
    facts.doctor.discovery.topology = topology;
    const auto labels = labels_of(export_nfd(test::assessed(facts)));
    EXPECT_EQ(labels.at("nvlink.largest-island-size"), "32");
    EXPECT_EQ(labels.count("nvlink.largest-island-gpus"), 0U);
}

TEST(ExportNfd, NoGpuIsStillAValidFile) {
    ExportFacts facts;
    facts.run.finished_unix = 1795942800;
    const auto labels = labels_of(export_nfd(test::assessed(facts)));
    EXPECT_EQ(labels.at("gpu.count"), "0");
    EXPECT_EQ(labels.at("topology"), "unknown");
    EXPECT_EQ(labels.at("doctor.verdict"), "inconclusive");
}

TEST(ExportNfd, ExpiryDirectiveIsExactAndOptional) {
    auto facts = facts_from_topo_m("unsloth_TOPO_PCIE_2X.txt");
    EXPECT_THAT(export_nfd(test::assessed(facts)), testing::Not(testing::HasSubstr("# +")));
    facts.run.expiry_seconds = 24 * 3600;
    EXPECT_THAT(export_nfd(test::assessed(facts)),
                testing::StartsWith("# peergate 0.1.0: generated 2026-11-29T09:00:00Z; rewritten "
                                    "atomically\n# +expiry-time=2026-11-30T09:00:00Z\n"));
}

// GPUDirect RDMA's path: GPU 0 below switch 03:00.0 (downstream port 04:08.0, ACS `gpu_acs`)
// beside NIC 07:00.0 (port 04:18.0, ACS off); with no NIC, "none".
TEST(ExportNfd, GdrPathSaysWhereRdmaBetweenAGpuAndItsNicGoes) {
    const auto port = [](const char* address, std::uint16_t acs) {
        return model::PciPort{.address = model::PciAddress::parse(address).value(),
                              .acs = model::AcsControl{acs}};
    };
    auto facts = facts_from_topo_m("ml-engineering-network_8xH100_NV18_compacted.txt");
    EXPECT_EQ(labels_of(export_nfd(test::assessed(facts))).at("gdr.path"), "none");
    facts.doctor.nics = {
        {.path = {.device = model::PciAddress::parse("0000:07:00.0").value(),
                  .ports = {port("0000:04:18.0", 0x0000), port("0000:03:00.0", 0)}}}};
    for (const auto& [gpu_acs, expected] :
         {std::pair<std::uint16_t, const char*>{0x0000, "switch"}, {0x001d, "redirect"}}) {
        facts.doctor.ports[0] = {port("0000:04:08.0", gpu_acs), port("0000:03:00.0", 0)};
        EXPECT_EQ(labels_of(export_nfd(test::assessed(facts))).at("gdr.path"), expected);
    }
}

// How a NIC can reach GPU memory: the doctor's reads of the host and of CUDA's DMA-BUF answer.
TEST(ExportNfd, GdrMemorySaysWhetherANicCanReachGpuMemory) {
    auto facts = facts_from_topo_m("ml-engineering-network_8xH100_NV18_compacted.txt");
    EXPECT_EQ(labels_of(export_nfd(test::assessed(facts))).at("gdr.memory"), "unknown");
    facts.doctor.host.peer_memory_module = "";
    facts.doctor.host.kernel_release = "6.8.0-51-generic";
    facts.doctor.dma_buf = {{0, true}, {1, true}};
    EXPECT_EQ(labels_of(export_nfd(test::assessed(facts))).at("gdr.memory"), "dmabuf");
    facts.doctor.dma_buf[1] = false;
    EXPECT_EQ(labels_of(export_nfd(test::assessed(facts))).at("gdr.memory"), "none");
    facts.doctor.host.peer_memory_module = "nvidia_peermem";
    EXPECT_EQ(labels_of(export_nfd(test::assessed(facts))).at("gdr.memory"), "peermem");
}

TEST(ExportNfd, LabelValuesAreSanitisedAsGfdDoes) {
    EXPECT_EQ(label_value("NVIDIA H100 80GB HBM3"), "NVIDIA-H100-80GB-HBM3");
    EXPECT_EQ(label_value("389.2GB/s"), "389.2GBs");
    EXPECT_EQ(label_value("  -x-  "), "x");
    EXPECT_EQ(label_value("/,:"), "");
    EXPECT_EQ(label_value(std::string(62, 'a') + "-b"), std::string(62, 'a'));
    EXPECT_EQ(label_value(std::string(80, 'a')).size(), 63U);
}

TEST(ExportNfd, Rfc3339InUtc) {
    EXPECT_EQ(rfc3339_utc(0), "1970-01-01T00:00:00Z");
    EXPECT_EQ(rfc3339_utc(1795942800), "2026-11-29T09:00:00Z");
}

}  // namespace
}  // namespace peergate::report::exports
