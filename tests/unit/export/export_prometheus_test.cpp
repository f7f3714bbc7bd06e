// SPDX-License-Identifier: Apache-2.0
// The textfile follows the text format's hard rules (docs/ecosystem.md §2.1, §2.2) on every
// fixture, and its values are the facts'. promtool itself judges it in the e2e tests.
#include "export_facts_fixture.hpp"
#include "export_prometheus_check.hpp"
#include "report/exports/prometheus.hpp"
#include "report/exports/prometheus_family.hpp"
#include "support/assessed_facts.hpp"
#include "support/pci_builders.hpp"
#include "util/strings.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <set>

namespace peergate::report::exports {
namespace {

using test::expect_well_formed;
using test::facts_from_topo_m;

TEST(ExportPrometheus, WellFormedOnEveryTopology) {
    for (const auto* fixture : {"ml-engineering-network_8xH100_NV18_compacted.txt",
                                "unsloth_TOPO_BRIDGED_4X.txt",
                                "unsloth_TOPO_PCIE_2X.txt"}) {
        SCOPED_TRACE(fixture);
        expect_well_formed(export_prometheus(test::assessed(facts_from_topo_m(fixture))));
    }
}

TEST(ExportPrometheus, AFamilyWithoutSamplesIsLeftOut) {
    auto facts = facts_from_topo_m("unsloth_TOPO_PCIE_2X.txt");
    facts.doctor.pairs.clear();  // as on a machine of one GPU
    const auto text = export_prometheus(test::assessed(facts));
    expect_well_formed(text);
    EXPECT_THAT(text, testing::Not(testing::HasSubstr("peergate_pair_nvlinks")));
    EXPECT_THAT(text, testing::Not(testing::HasSubstr("peergate_p2p_status")));
    EXPECT_THAT(text, testing::HasSubstr("# TYPE peergate_gpu_info gauge\n"));
}

TEST(ExportPrometheus, LabelsFollowDcgmAndAreEscaped) {
    auto facts = facts_from_topo_m("unsloth_TOPO_PCIE_2X.txt");
    facts.doctor.discovery.topology->gpus[0].name = "Odd \"GPU\" \\ name\nline two";
    const auto text = export_prometheus(test::assessed(facts));
    expect_well_formed(text);
    EXPECT_THAT(
        text,
        testing::HasSubstr(
            R"(peergate_gpu_info{gpu="0",UUID="GPU-0",pci_bus_id="",model_name="Odd \"GPU\" \\ name\nline two",numa_node=)"));
    EXPECT_THAT(text, testing::HasSubstr("peergate_pair_nvlinks{gpu=\"0\",peer_gpu=\"1\"} 0\n"));
}

// HELP text escapes backslash and newline only (a quote stays): the format's rule for it.
TEST(ExportPrometheus, HelpTextIsEscapedAsTheFormatSays) {
    PrometheusFamily family("peergate_demo", "gauge", "a \\ b\nc \"d\"");
    family.sample({}, 1.0);
    EXPECT_EQ(
        family.text(),
        "# HELP peergate_demo a \\\\ b\\nc \"d\"\n# TYPE peergate_demo gauge\npeergate_demo 1\n");
}

TEST(ExportPrometheus, EachExaminedGpusNvlinksUpAndSlots) {
    auto facts = facts_from_topo_m("unsloth_TOPO_BRIDGED_4X.txt");
    for (int gpu = 0; gpu < 4; ++gpu) {
        facts.doctor.links.push_back(policy::doctor::GpuLinks{
            .gpu = gpu,
            .name = "A100",
            .slots = 12,
            .down = gpu == 2 ? std::vector<int>{0, 1} : std::vector<int>{}});
    }
    facts.doctor.selection = {1, 2};
    const auto text = export_prometheus(test::assessed(facts));
    expect_well_formed(text);
    EXPECT_THAT(text, testing::HasSubstr("peergate_gpu_nvlink_slots{gpu=\"1\"} 12\n"));
    EXPECT_THAT(text, testing::HasSubstr("peergate_gpu_nvlinks_up{gpu=\"2\"} 10\n"));
    EXPECT_THAT(text, testing::Not(testing::HasSubstr("peergate_gpu_nvlinks_up{gpu=\"0\"}")));
}

TEST(ExportPrometheus, P2pStatusUsesDcgmWordsAndNvmlCodes) {
    auto facts = facts_from_topo_m("unsloth_TOPO_PCIE_2X.txt");
    facts.doctor.pairs[0].nvml = {"CNS", "OK", "NS", "U", ""};
    facts.doctor.pairs[0].cuda_can_access_peer = false;
    const auto text = export_prometheus(test::assessed(facts));
    EXPECT_THAT(
        text,
        testing::HasSubstr(
            R"(peergate_p2p_status{gpu="0",peer_gpu="1",caps="read",link_status="ChipsetNotSupported"} 1)"));
    EXPECT_THAT(text, testing::HasSubstr(R"(caps="nvlink",link_status="NotSupported"} 5)"));
    EXPECT_THAT(text, testing::HasSubstr(R"(caps="atomics",link_status="Unknown"} 6)"));
    EXPECT_THAT(text, testing::Not(testing::HasSubstr(R"(peer_gpu="1",caps="prop")")));  // not read
    EXPECT_THAT(text,
                testing::HasSubstr("peergate_cuda_can_access_peer{gpu=\"0\",peer_gpu=\"1\"} 0\n"));
}

TEST(ExportPrometheus, IntegrityCountsFailedCopiesOnlyWhenAProbeRan) {
    auto facts = facts_from_topo_m("unsloth_TOPO_PCIE_2X.txt");
    EXPECT_THAT(export_prometheus(test::assessed(facts)),
                testing::Not(testing::HasSubstr("integrity")));
    model::ProbeResult probe;
    for (auto status :
         {model::CellStatus::ok, model::CellStatus::dropped, model::CellStatus::corrupted}) {
        probe.cells.push_back(model::ProbeCell{.src = 0, .dst = 1, .status = status});
    }
    probe.cells.push_back(model::ProbeCell{.src = 1, .dst = 0, .status = model::CellStatus::error});
    facts.doctor.probe = probe;
    const auto text = export_prometheus(test::assessed(facts));
    EXPECT_THAT(
        text,
        testing::HasSubstr("peergate_p2p_integrity_errors_total{gpu=\"0\",peer_gpu=\"1\"} 2\n"));
    EXPECT_THAT(
        text,
        testing::HasSubstr("peergate_p2p_integrity_errors_total{gpu=\"1\",peer_gpu=\"0\"} 0\n"));
    // What this run's probe found, as gauges: a run does not add to the last one's checks.
    EXPECT_THAT(text, testing::HasSubstr("# TYPE peergate_p2p_integrity_failed_checks gauge\n"));
    EXPECT_THAT(
        text,
        testing::HasSubstr("peergate_p2p_integrity_failed_checks{gpu=\"0\",peer_gpu=\"1\"} 2\n"));
    EXPECT_THAT(
        text,
        testing::HasSubstr("peergate_p2p_integrity_failed_checks{gpu=\"1\",peer_gpu=\"0\"} 0\n"));
    EXPECT_THAT(text,
                testing::HasSubstr("peergate_p2p_integrity_checks{gpu=\"0\",peer_gpu=\"1\"} 3\n"));
    EXPECT_THAT(text,
                testing::HasSubstr("peergate_p2p_integrity_checks{gpu=\"1\",peer_gpu=\"0\"} 0\n"));
    EXPECT_THAT(text,
                testing::HasSubstr("# HELP peergate_p2p_integrity_errors_total DEPRECATED: use "
                                   "peergate_p2p_integrity_failed_checks"));
}

// The findings by code are not one letter from the findings by severity (issue 35).
TEST(ExportPrometheus, EachFindingCodeGivenIsActive) {
    auto facts = facts_from_topo_m("unsloth_TOPO_PCIE_2X.txt");
    facts.report.findings = {
        {.code = peergate::model::FindingCode::nvlink_errors, .severity = model::Severity::warning},
        {.code = peergate::model::FindingCode::nvlink_errors, .severity = model::Severity::warning},
        {.code = peergate::model::FindingCode::p2p_not_supported,
         .severity = model::Severity::info}};
    const auto text = export_prometheus(test::assessed(facts));
    expect_well_formed(text);
    EXPECT_THAT(text,
                testing::HasSubstr("peergate_doctor_finding_active{code=\"nvlink_errors\","
                                   "severity=\"warning\"} 1\n"
                                   "peergate_doctor_finding_active{code=\"p2p_not_supported\","
                                   "severity=\"info\"} 1\n"));
    EXPECT_THAT(text,
                testing::HasSubstr(
                    "peergate_doctor_finding{code=\"nvlink_errors\",severity=\"warning\"} 2\n"));
    EXPECT_THAT(text,
                testing::HasSubstr("# HELP peergate_doctor_finding DEPRECATED: use "
                                   "peergate_doctor_finding_active"));
    EXPECT_THAT(text, testing::HasSubstr("peergate_doctor_findings{severity=\"warning\"} 2\n"));
}

TEST(ExportPrometheus, BandwidthInBytesPerSecond) {
    auto facts = facts_from_topo_m("unsloth_TOPO_PCIE_2X.txt");
    facts.doctor.pairs[0].p2p_gbps = 389.2;
    facts.doctor.pairs[0].staged_gbps = 12.5;
    const auto text = export_prometheus(test::assessed(facts));
    expect_well_formed(text);
    EXPECT_THAT(
        text,
        testing::HasSubstr(
            R"(peergate_p2p_bandwidth_bytes_per_second{gpu="0",peer_gpu="1",mode="unidirectional"} 389200000000)"));
    EXPECT_THAT(
        text,
        testing::HasSubstr(
            R"(peergate_staged_bandwidth_bytes_per_second{gpu="0",peer_gpu="1",mode="unidirectional"} 12500000000)"));
    EXPECT_THAT(text, testing::Not(testing::HasSubstr("bidirectional")));  // not measured
}

// bench measures both directions at once too (bidirectional_gbps, both counted).
TEST(ExportPrometheus, BidirectionalBandwidthBesideTheOneWayRate) {
    auto facts = facts_from_topo_m("unsloth_TOPO_PCIE_2X.txt");
    facts.doctor.pairs[0].p2p_gbps = 24.5;
    facts.doctor.pairs[0].bidirectional_gbps = 47.25;
    const auto text = export_prometheus(test::assessed(facts));
    expect_well_formed(text);
    EXPECT_THAT(text,
                testing::HasSubstr("# TYPE peergate_p2p_bidirectional_bandwidth_bytes_per_second "
                                   "gauge\n"));
    EXPECT_THAT(text,
                testing::HasSubstr("peergate_p2p_bidirectional_bandwidth_bytes_per_second{gpu="
                                   "\"0\",peer_gpu=\"1\"} 47250000000\n"));
    EXPECT_THAT(text, testing::Not(testing::HasSubstr("{gpu=\"1\",peer_gpu=\"0\"} 4")));
}

// Two GPUs, each below its own PCIe switch: NIC mlx5_0 below GPU 0's (PIX), a second card at
// its root port's bus whose driver did not come up (no RDMA device), and a virtual function.
ExportFacts facts_with_nics() {
    auto facts = facts_from_topo_m("unsloth_TOPO_PCIE_2X.txt");
    auto& gpus = facts.doctor.discovery.topology->gpus;
    gpus[0].pci = test::pci("0000:17:00.0");
    gpus[1].pci = test::pci("0000:41:00.0");
    facts.doctor.ports[0] = {test::port("0000:16:00.0", {}),
                             test::port("0000:15:00.0", {}),
                             test::port("0000:14:01.0", {})};
    facts.doctor.ports[1] = {test::port("0000:40:00.0", {}),
                             test::port("0000:3f:00.0", {}),
                             test::port("0000:3e:01.0", {})};
    const auto nic = [](const char* bus, std::vector<model::PciPort> ports, const char* rdma) {
        return model::Nic{
            .path = {.device = test::pci(bus), .ports = std::move(ports)},
            .numa_node = 0,
            .rdma_devices = *rdma ? std::vector<std::string>{rdma} : std::vector<std::string>{},
            .interfaces = {},
            .physical_function = std::nullopt};
    };
    facts.doctor.nics.push_back(nic("0000:18:00.0",
                                    {test::port("0000:16:04.0", {}),
                                     test::port("0000:15:00.0", {}),
                                     test::port("0000:14:01.0", {})},
                                    "mlx5_0"));
    facts.doctor.nics.push_back(nic("0000:3e:02.0", {}, ""));
    auto vf = nic("0000:18:00.2", facts.doctor.nics[0].path.ports, "mlx5_2");
    vf.physical_function = test::pci("0000:18:00.0");
    facts.doctor.nics.push_back(vf);
    return facts;
}

TEST(ExportPrometheus, EachPhysicalNicAndEachGpusNearestNic) {
    auto facts = facts_with_nics();
    facts.doctor.aer[test::pci("0000:18:00.0")] =
        model::PciAer{.correctable = model::AerCounters{.counts = {{"BadTLP", 3}}}};
    const auto text = export_prometheus(test::assessed(facts));
    expect_well_formed(text);
    EXPECT_THAT(text,
                testing::HasSubstr(
                    "peergate_nic_info{nic=\"0000:18:00.0\",rdma_device=\"mlx5_0\",interface=\"\","
                    "numa_node=\"0\"} 1\n"
                    "peergate_nic_info{nic=\"0000:3e:02.0\",rdma_device=\"\",interface=\"\",numa_"
                    "node=\"0\"} 1\n"));
    EXPECT_THAT(text, testing::Not(testing::HasSubstr("mlx5_2")));  // a virtual function
    EXPECT_THAT(text,
                testing::HasSubstr("peergate_gpu_nearest_nic_info{gpu=\"0\",nic=\"0000:18:00.0\","
                                   "rdma_device=\"mlx5_0\",path=\"PIX\"} 1\n"));
    // GPU 1 meets the card on its root bus (PHB), nearer than mlx5_0 on another host bridge.
    EXPECT_THAT(text,
                testing::HasSubstr("peergate_gpu_nearest_nic_info{gpu=\"1\",nic=\"0000:3e:02.0\","
                                   "rdma_device=\"\",path=\"PHB\"} 1\n"));
    EXPECT_THAT(text, testing::Not(testing::HasSubstr("{gpu=\"1\",nic=\"0000:18:00.0\"")));
    EXPECT_THAT(text,
                testing::HasSubstr("peergate_nic_aer_errors_total{nic=\"0000:18:00.0\","
                                   "severity=\"correctable\"} 3\n"));
    EXPECT_THAT(text, testing::Not(testing::HasSubstr("severity=\"nonfatal\"")));  // not read
}

TEST(ExportPrometheus, NoNearestNicWhereSysfsShowedNoGpuPath) {
    auto facts = facts_with_nics();
    facts.doctor.ports.clear();  // a container without the host's /sys
    facts.doctor.selection = {1};
    const auto text = export_prometheus(test::assessed(facts));
    EXPECT_THAT(text, testing::HasSubstr("peergate_nic_info{nic=\"0000:18:00.0\""));
    EXPECT_THAT(text, testing::Not(testing::HasSubstr("peergate_gpu_nearest_nic_info")));
}

TEST(ExportPrometheus, LastSuccessIsThisRunOrCarriedOver) {
    auto facts = facts_from_topo_m("unsloth_TOPO_PCIE_2X.txt");
    const auto healthy_text = export_prometheus(test::assessed(facts));
    EXPECT_THAT(healthy_text,
                testing::HasSubstr("peergate_last_success_timestamp_seconds 1795942800\n"));
    EXPECT_EQ(last_success_in(healthy_text), 1795942800.0);

    facts.report.verdict = policy::doctor::Verdict::problems;
    facts.run.finished_unix += 600;
    EXPECT_THAT(export_prometheus(test::assessed(facts)),
                testing::HasSubstr("peergate_last_success_timestamp_seconds 0\n"));
    facts.run.previous_success_unix = last_success_in(healthy_text);
    const auto unhealthy_text = export_prometheus(test::assessed(facts));
    EXPECT_THAT(unhealthy_text,
                testing::HasSubstr("peergate_last_success_timestamp_seconds 1795942800\n"));
    EXPECT_THAT(unhealthy_text,
                testing::HasSubstr("peergate_last_run_timestamp_seconds 1795943400\n"));
    EXPECT_THAT(unhealthy_text,
                testing::HasSubstr("peergate_doctor_verdict{verdict=\"problems\"} 1\n"));
}

TEST(ExportPrometheus, LastSuccessIgnoresWhatItDidNotWrite) {
    EXPECT_EQ(last_success_in(""), std::nullopt);
    EXPECT_EQ(last_success_in("peergate_last_success_timestamp_seconds 0\n"), std::nullopt);
    EXPECT_EQ(last_success_in("peergate_last_success_timestamp_seconds x\n"), std::nullopt);
    EXPECT_EQ(last_success_in("peergate_last_success_timestamp_seconds_x 5\n"), std::nullopt);
    EXPECT_EQ(last_success_in("# peergate_last_success_timestamp_seconds 5\n"), std::nullopt);
    EXPECT_EQ(last_success_in("a 1\npeergate_last_success_timestamp_seconds 1.7e+09\n"), 1.7e9);
}

}  // namespace
}  // namespace peergate::report::exports
