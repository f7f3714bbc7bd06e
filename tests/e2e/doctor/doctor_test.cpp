// SPDX-License-Identifier: Apache-2.0
// peergate doctor end to end: on simulated machines, and with saved kernel logs.
#include "support/peergate_process.hpp"
#include "util/atomic_file.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

namespace peergate::test {
namespace {

std::vector<std::string> no_driver() {
    return {"--nvml-lib",
            "/nonexistent/libnvidia-ml.so.1",
            "--cuda-lib",
            "/nonexistent/libcuda.so.1",
            "--nvidia-smi",
            "/nonexistent/nvidia-smi",
            "--host-root",
            "/nonexistent-root"};
}

TEST(DoctorCli, SilentDropMachineIsAProblemWithTheIommuAndTheDmarFault) {
    const auto run = run_peergate({"--simulate", "pcie-rtx6000ada-2x-iommu", "doctor", "--json"});
    EXPECT_EQ(run.process.exit_code, 1) << run.process.err;
    const auto doc = stdout_json(run);
    EXPECT_EQ(doc["schema"], "peergate.doctor/v1");
    EXPECT_EQ(doc["verdict"], "problems");
    EXPECT_NE(find_finding(doc, "pcie_p2p_under_translating_iommu"), nullptr) << doc.dump(2);
    EXPECT_NE(find_finding(doc, "dmar_fault_gpu"), nullptr) << doc.dump(2);
    EXPECT_EQ(doc["layers"]["host"]["iommu"], "translating");
}

TEST(DoctorCli, NvswitchMachineIsHealthy) {
    const auto run = run_peergate({"--simulate", "hgx-b200-8x", "doctor", "--json"});
    EXPECT_EQ(run.process.exit_code, 0) << run.process.out << run.process.err;
    EXPECT_EQ(stdout_json(run)["verdict"], "healthy");
}

TEST(DoctorCli, KernelLogFromAFileNamesTheXidAndMakesTheVerdictProblems) {
    auto args = no_driver();
    args.insert(args.end(),
                {"doctor",
                 "--json",
                 "--kernel-log",
                 std::string(PEERGATE_TEST_FIXTURES) + "/dmesg/nvsentinel-155_fallen_off_bus.txt"});
    const auto run = run_peergate(args);
    EXPECT_EQ(run.process.exit_code, 1);
    const auto doc = stdout_json(run);
    EXPECT_NE(find_finding(doc, "xid_79"), nullptr);
    EXPECT_NE(find_finding(doc, "no_nvidia_driver"), nullptr);
    EXPECT_EQ(doc["layers"]["kernel_log"]["events"].size(), 2U);
}

// With no GPU on the host, every AER report is still reported, with its device (issue 33).
TEST(DoctorCli, KernelLogAerReportsWithoutAGpuNameTheirDevices) {
    auto args = no_driver();
    args.insert(
        args.end(),
        {"doctor",
         "--json",
         "--kernel-log",
         std::string(PEERGATE_TEST_FIXTURES) + "/dmesg/pop-os-751_aer_port_and_device.txt"});
    const auto run = run_peergate(args);
    const auto doc = stdout_json(run);
    const auto& events = doc["layers"]["kernel_log"]["events"];
    ASSERT_EQ(events.size(), 2U) << events.dump(2);
    EXPECT_EQ(events[1]["kind"], "pcie_aer");
    EXPECT_EQ(events[1]["pci_bus_id"], "00000000:03:00.0");
    EXPECT_EQ(events[1]["aer"]["severity"], "corrected");
    EXPECT_EQ(events[1]["aer"]["port"], "00000000:00:1D.0");
    EXPECT_EQ(events[1]["aer"]["errors"], nlohmann::json::array({"RxErr"}));
    const auto* finding = find_finding(doc, "pcie_aer_logged_corrected");
    ASSERT_NE(finding, nullptr) << doc.dump(2);
    EXPECT_EQ((*finding)["severity"], "info") << "not on a GPU's path";
}

// NVSwitch errors are SXids of the switch, never a GPU's Xid (issue 33).
TEST(DoctorCli, KernelLogSxidsAreTheSwitchesOwnEventsNotXids) {
    auto args = no_driver();
    args.insert(args.end(),
                {"doctor",
                 "--json",
                 "--kernel-log",
                 std::string(PEERGATE_TEST_FIXTURES) +
                     "/dmesg/gpud-readme_xid79_sxid20034_fatal_ltssm.txt"});
    const auto run = run_peergate(args);
    EXPECT_EQ(run.process.exit_code, 1);
    const auto doc = stdout_json(run);
    EXPECT_EQ(find_finding(doc, "xid_20034"), nullptr) << doc.dump(2);
    const auto* sxid = find_finding(doc, "sxid_20034");
    ASSERT_NE(sxid, nullptr) << doc.dump(2);
    EXPECT_EQ((*sxid)["severity"], "error");
    const auto& events = doc["layers"]["kernel_log"]["events"];
    ASSERT_EQ(events.size(), 5U) << events.dump(2);
    EXPECT_EQ(events[3]["kind"], "sxid");
    EXPECT_EQ(events[3]["pci_bus_id"], "00000000:05:00.0");
    EXPECT_TRUE(events[3]["xid"].is_null());
    EXPECT_EQ(events[3]["count"], 2);
    EXPECT_EQ(events[3]["sxid"]["number"], 20034);
    EXPECT_EQ(events[3]["sxid"]["fatal"], true);
    EXPECT_EQ(events[3]["sxid"]["links"], nlohmann::json::array({63, 62}));
    EXPECT_EQ(events[3]["sxid"]["description"], "LTSSM Fault Up");
}

TEST(DoctorCli, KernelLogWithBytesThatAreNotUtf8StillGivesJson) {
    const auto dir = std::filesystem::temp_directory_path() / "peergate-doctor-utf8";
    std::filesystem::create_directories(dir);
    const std::string log = (dir / "dmesg.txt").string();
    ASSERT_TRUE(
        util::write_file_atomically(log, "NVRM: Xid (PCI:0000:41:00): 79, GPU \xff\xfe fell\n")
            .has_value());
    auto args = no_driver();
    args.insert(args.end(), {"doctor", "--json", "--kernel-log", log});
    const auto run = run_peergate(args);
    EXPECT_EQ(run.process.exit_code, 1) << run.process.err;
    EXPECT_TRUE(find_finding(stdout_json(run), "xid_79") != nullptr);
    std::filesystem::remove_all(dir);
}

TEST(DoctorCli, WithoutADriverSaysWhatItLookedForAndShowsTheDemo) {
    auto args = no_driver();
    args.push_back("doctor");
    const auto run = run_peergate(args);
    EXPECT_EQ(run.process.exit_code, 2);
    EXPECT_NE(run.process.out.find("No NVIDIA driver found"), std::string::npos) << run.process.out;
    EXPECT_NE(run.process.out.find("/nonexistent/libnvidia-ml.so.1"), std::string::npos);
    EXPECT_NE(run.process.out.find("--simulate pcie-rtx6000ada-2x-iommu doctor"),
              std::string::npos);
}

}  // namespace
}  // namespace peergate::test
