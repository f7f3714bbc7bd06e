// SPDX-License-Identifier: Apache-2.0
// GPUDirect RDMA paths end to end (tests/fixtures/machines/gdr-acs-4x.json): the doctor reads
// the host's network functions from the simulated sysfs, pairs each examined GPU with the
// NICs below its PCIe switch, and warns where ACS sends their traffic to the root complex.
#include "snapshot/machine_file.hpp"
#include "snapshot/machine_file_text.hpp"
#include "support/peergate_process.hpp"
#include "support/sim_machines.hpp"

#include <gtest/gtest.h>

#include <string>

namespace peergate::test {
namespace {

std::string gdr_machine() {
    return fixture_machine("gdr-acs-4x");
}

TEST(DoctorGpuNic, RedirectBetweenAGpuAndItsNicIsAWarning) {
    const auto run = run_peergate({"--simulate", gdr_machine(), "doctor", "--json"});
    EXPECT_EQ(run.process.exit_code, 0) << run.process.err;  // a warning: still healthy
    const auto doc = stdout_json(run);
    EXPECT_EQ(doc["layers"]["peer_access"]["gpu_nics"].dump(),
              R"([{"gpu":0,"nic":"0000:07:00.0","shared_port":"0000:03:00.0","acs":"redirect",)"
              R"("dma_buf":false},)"
              R"({"gpu":1,"nic":"0000:07:00.0","shared_port":"0000:03:00.0","acs":"redirect",)"
              R"("dma_buf":false},)"
              R"({"gpu":2,"nic":"0000:85:00.0","shared_port":"0000:81:00.0","acs":"off",)"
              R"("dma_buf":false},)"
              R"({"gpu":3,"nic":"0000:85:00.0","shared_port":"0000:81:00.0","acs":"off",)"
              R"("dma_buf":false}])");
    const auto* finding = find_finding(doc, "acs_redirect_nic");
    ASSERT_NE(finding, nullptr) << doc["findings"].dump(2);
    EXPECT_EQ((*finding)["severity"], "warning");
    EXPECT_EQ((*finding)["gpus"].dump(), "[0,1]");
    EXPECT_NE((*finding)["message"].get<std::string>().find(
                  "GPU 0 and network device 0000:07:00.0 sit below the same PCIe port"),
              std::string::npos);
}

TEST(DoctorGpuNic, GpusWhoseSwitchLetsRdmaThroughSayNothing) {
    const auto run =
        run_peergate({"--simulate", gdr_machine(), "doctor", "--gpus", "2,3", "--json"});
    EXPECT_EQ(run.process.exit_code, 0) << run.process.err;
    const auto doc = stdout_json(run);
    EXPECT_EQ(find_finding(doc, "acs_redirect_nic"), nullptr) << doc["findings"].dump(2);
    EXPECT_EQ(doc["layers"]["peer_access"]["gpu_nics"].size(), 2U);
}

TEST(DoctorGpuNic, APeerMemoryModuleIsLookedFor) {
    const auto run = run_peergate({"--simulate", gdr_machine(), "doctor", "--json"});
    const auto doc = stdout_json(run);
    EXPECT_EQ(doc["layers"]["host"]["peer_memory_module"], "");
    const auto* none = find_finding(doc, "gdr_no_peer_memory");
    ASSERT_NE(none, nullptr) << doc["findings"].dump(2);
    EXPECT_EQ((*none)["severity"], "info");
    EXPECT_EQ((*none)["gpus"].dump(), "[0,1,2,3]");
    // The same machine with nvidia-peermem loaded: the host says so and the note goes.
    auto machine = snapshot::load_machine(gdr_machine());
    ASSERT_TRUE(machine.has_value());
    machine->host.peer_memory_module = "nvidia_peermem";
    const test::ScratchDir scratch;
    const auto path = scratch.write("peermem.json", snapshot::to_json_text(*machine));
    const auto loaded = stdout_json(run_peergate({"--simulate", path, "doctor", "--json"}));
    EXPECT_EQ(loaded["layers"]["host"]["peer_memory_module"], "nvidia_peermem");
    EXPECT_EQ(find_finding(loaded, "gdr_no_peer_memory"), nullptr);
}

// gdr-acs-4x as the file gives it, with its host changed.
std::string with_host(const test::ScratchDir& scratch,
                      const std::string& kernel_module,
                      const std::string& kernel_release) {
    auto machine = snapshot::load_machine(gdr_machine());
    EXPECT_TRUE(machine.has_value());
    machine->host.kernel_module = kernel_module;
    machine->host.kernel_release = kernel_release;
    return scratch.write(kernel_module + kernel_release + ".json",
                         snapshot::to_json_text(*machine));
}

TEST(DoctorGpuNic, TheProprietaryModuleLeavesNoDmaBuf) {
    const auto doc = stdout_json(run_peergate({"--simulate", gdr_machine(), "doctor", "--json"}));
    EXPECT_EQ(doc["layers"]["host"]["nvidia_kernel_module"].dump(),
              R"({"flavour":"proprietary","version":"570.86.15"})");
    EXPECT_EQ(doc["layers"]["host"]["kernel_release"], "5.15.0-119-generic");
    const auto* none = find_finding(doc, "gdr_no_peer_memory");
    ASSERT_NE(none, nullptr) << doc["findings"].dump(2);
    EXPECT_NE((*none)["message"].get<std::string>().find(
                  "the CUDA driver reports no DMA-BUF support on GPUs 0,1,2,3 (the proprietary "
                  "kernel module 570.86.15: only the open one exports DMA-BUF)"),
              std::string::npos)
        << (*none)["message"];
    const auto text = run_peergate({"--simulate", gdr_machine(), "doctor"}).process.out;
    EXPECT_NE(text.find(", NVIDIA proprietary kernel module 570.86.15, Linux 5.15.0-119-generic"),
              std::string::npos)
        << text;
}

TEST(DoctorGpuNic, TheOpenModuleOnANewKernelCarriesGdrWithoutPeerMemory) {
    const test::ScratchDir scratch;
    const auto open = stdout_json(run_peergate(
        {"--simulate", with_host(scratch, "open", "6.8.0-51-generic"), "doctor", "--json"}));
    EXPECT_EQ(open["layers"]["peer_access"]["gpu_nics"][0]["dma_buf"], true);
    EXPECT_EQ(find_finding(open, "gdr_no_peer_memory"), nullptr) << open["findings"].dump(2);
    const auto old_kernel = stdout_json(run_peergate(
        {"--simulate", with_host(scratch, "open", "5.4.0-150-generic"), "doctor", "--json"}));
    const auto* none = find_finding(old_kernel, "gdr_no_peer_memory");
    ASSERT_NE(none, nullptr) << old_kernel["findings"].dump(2);
    EXPECT_NE((*none)["message"].get<std::string>().find("Linux 5.4.0-150-generic predates 5.12"),
              std::string::npos);
    // No module recorded: the simulated driver does not answer the attribute, nor does /proc.
    const auto unread =
        stdout_json(run_peergate({"--simulate", with_host(scratch, "", ""), "doctor", "--json"}));
    EXPECT_TRUE(unread["layers"]["host"]["nvidia_kernel_module"].is_null());
    EXPECT_TRUE(unread["layers"]["peer_access"]["gpu_nics"][0]["dma_buf"].is_null());
    ASSERT_NE(find_finding(unread, "gdr_no_peer_memory"), nullptr);
}

TEST(DoctorGpuNic, AMachineWithoutNicsListsNone) {
    const auto run = run_peergate({"--simulate", "bridged-a100-4x", "doctor", "--json"});
    const auto doc = stdout_json(run);
    EXPECT_EQ(doc["layers"]["peer_access"]["gpu_nics"].dump(), "[]");
    EXPECT_EQ(find_finding(doc, "acs_redirect_nic"), nullptr);
    EXPECT_EQ(find_finding(doc, "gdr_no_peer_memory"), nullptr);  // no NIC beside a GPU
}

// The built-in HGX B200: its dual-port ConnectX-7 shares GPUs 4 and 5's PCIe switch, ACS off
// there, and the open module exports DMA-BUF: GPUDirect RDMA has its short path, no finding.
TEST(DoctorGpuNic, TheBuiltInHgxHasGdrBesideGpusFourAndFive) {
    const auto doc = stdout_json(run_peergate({"--simulate", "hgx-b200-8x", "doctor", "--json"}));
    EXPECT_EQ(doc["layers"]["peer_access"]["gpu_nics"], nlohmann::ordered_json::parse(R"([
        {"gpu": 4, "nic": "0000:ac:00.0", "shared_port": "0000:9b:00.0", "acs": "off",
         "dma_buf": true},
        {"gpu": 5, "nic": "0000:ac:00.0", "shared_port": "0000:9b:00.0", "acs": "off",
         "dma_buf": true}])"));
    EXPECT_EQ(doc["verdict"], "healthy") << doc["findings"].dump(2);
}

}  // namespace
}  // namespace peergate::test
