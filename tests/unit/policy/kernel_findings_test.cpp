// SPDX-License-Identifier: Apache-2.0
#include "policy/doctor/kernel_findings.hpp"

#include "policy/doctor/doctor.hpp"
#include "sources/host/kernel_log_parser.hpp"

#include <gtest/gtest.h>

#include <map>

namespace peergate::policy::doctor {
namespace {

using model::Severity;

model::Topology two_gpus(const char* bus0, const char* bus1) {
    model::Topology t;
    t.gpus = {model::Gpu{.index = 0, .pci = model::PciAddress::parse(bus0).value()},
              model::Gpu{.index = 1, .pci = model::PciAddress::parse(bus1).value()}};
    t.matrix = {{model::LinkLabel::self(), model::LinkLabel::of(model::LinkKind::node)},
                {model::LinkLabel::of(model::LinkKind::node), model::LinkLabel::self()}};
    return t;
}

TEST(KernelFindings, AmdViFaultsFromAGpuAreAnErrorNamingTheGpu) {
    const auto events = sources::host::parse_kernel_log(
        "nvidia 0000:81:00.0: AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x001c address=0xd0826240 "
        "flags=0x0020]\n");
    const auto topology = two_gpus("00000000:41:00.0", "00000000:81:00.0");
    const auto findings = kernel_findings(events, &topology);
    ASSERT_EQ(findings.size(), 1U);
    EXPECT_EQ(findings[0].id(), "amd_vi_fault_gpu");
    EXPECT_EQ(findings[0].severity, Severity::error);
    EXPECT_EQ(findings[0].gpus, std::vector<int>{1});
    EXPECT_NE(findings[0].message.find("GPU 1"), std::string::npos) << findings[0].message;
    EXPECT_NE(findings[0].remedy.find("iommu=pt"), std::string::npos);
    EXPECT_EQ(findings[0].pci_bus_id, "00000000:81:00.0");
}

TEST(KernelFindings, IommuFaultsOfOtherDevicesAreOnlyInformation) {
    const auto events = sources::host::parse_kernel_log(
        "DMAR: [DMA Write] Request device [00:12.0] fault addr 0 [fault reason 05] PTE Write "
        "access is not set\n");
    const auto topology = two_gpus("00000000:41:00.0", "00000000:81:00.0");
    const auto findings = kernel_findings(events, &topology);
    ASSERT_EQ(findings.size(), 1U);
    EXPECT_EQ(findings[0].id(), "dmar_fault_other_device");
    EXPECT_EQ(findings[0].severity, Severity::info);
    EXPECT_TRUE(findings[0].gpus.empty());
}

TEST(KernelFindings, XidsMatchGpusIgnoringThePciFunctionAndCarryTheirMeaning) {
    const auto events = sources::host::parse_kernel_log(
        "NVRM: Xid (PCI:0000:41:00): 79, GPU has fallen off the bus\n"
        "NVRM: Xid (PCI:0000:81:00): 63, pid=1, Row Remapper: New row marked for remapping\n"
        "NVRM: Xid (PCI:0000:81:00): 74, pid=1, NVLink: fatal error\n"
        "NVRM: Xid (PCI:0000:81:00): 999, pid=1, something new\n");
    const auto topology = two_gpus("00000000:41:00.0", "00000000:81:00.0");
    const auto findings = kernel_findings(events, &topology);
    ASSERT_EQ(findings.size(), 4U);
    EXPECT_EQ(findings[0].id(), "xid_79");
    EXPECT_EQ(findings[0].severity, Severity::error);
    EXPECT_EQ(findings[0].gpus, std::vector<int>{0});
    EXPECT_EQ(findings[0].xid, 79);
    EXPECT_EQ(findings[1].severity, Severity::warning);  // row remapping: memory health
    EXPECT_EQ(findings[2].severity, Severity::error);    // NVLink error
    EXPECT_EQ(findings[3].id(), "xid_999");              // unknown Xids are still reported
    EXPECT_EQ(findings[3].severity, Severity::warning);
}

// Two GPUs on one bus, told apart by the device number (the function is ignored).
TEST(KernelFindings, AnXidNamesTheGpuOfItsDeviceNumberOnASharedBus) {
    const auto events =
        sources::host::parse_kernel_log("NVRM: Xid (PCI:0000:41:01): 74, pid=1, NVLink: error\n");
    const auto topology = two_gpus("00000000:41:00.0", "00000000:41:01.0");
    const auto findings = kernel_findings(events, &topology);
    ASSERT_EQ(findings.size(), 1U);
    EXPECT_EQ(findings[0].gpus, std::vector<int>{1});
}

TEST(KernelFindings, HowOftenCountsRepeatsAndTheKernelsSuppressedCallbacks) {
    const auto events = sources::host::parse_kernel_log(
        "DMAR: [DMA Write NO_PASID] Request device [81:00.0] fault addr 0x1000 [fault reason "
        "0x05] PTE Write access is not set\n"
        "dmar_fault: 2474 callbacks suppressed\n"
        "DMAR: [DMA Write NO_PASID] Request device [81:00.0] fault addr 0x2000 [fault reason "
        "0x05] PTE Write access is not set\n"
        "NVRM: Xid (PCI:0000:41:00): 13, pid=1, Graphics Exception\n");
    const auto topology = two_gpus("00000000:41:00.0", "00000000:81:00.0");
    const auto findings = kernel_findings(events, &topology);
    ASSERT_EQ(findings.size(), 2U);
    EXPECT_EQ(findings[0].id(), "dmar_fault_gpu");
    EXPECT_NE(findings[0].message.find("(2 times, and 2474 more suppressed by the kernel)"),
              std::string::npos)
        << findings[0].message;
    EXPECT_NE(findings[1].message.find("(once)"), std::string::npos) << findings[1].message;
}

TEST(KernelFindings, FallenOffTheBusWithoutAnXidReadsAsXid79) {
    const auto events =
        sources::host::parse_kernel_log("NVRM: GPU at 0000:41:00.0 has fallen off the bus.\n");
    const auto findings = kernel_findings(events, nullptr);
    ASSERT_EQ(findings.size(), 1U);
    EXPECT_EQ(findings[0].id(), "xid_79");
    EXPECT_TRUE(findings[0].gpus.empty());  // no topology: the bus id alone names it
    EXPECT_NE(findings[0].message.find("0000:41:00.0"), std::string::npos);
}

TEST(Doctor, KernelErrorsMakeTheVerdictProblemsOnAHealthyFabric) {
    DoctorInput input;
    input.parts = {
        PartStatus{.what = "nvidia-smi", .found = true, .detail = "/usr/bin/nvidia-smi"}};
    auto topology = two_gpus("00000000:41:00.0", "00000000:81:00.0");
    topology.matrix[0][1] = topology.matrix[1][0] = model::LinkLabel::nvlink(4);
    input.discovery.topology = topology;
    EXPECT_EQ(diagnose(input).verdict, Verdict::healthy);
    input.kernel_events =
        sources::host::parse_kernel_log("NVRM: Xid (PCI:0000:41:00): 74, NVLink error\n");
    const auto report = diagnose(input);
    EXPECT_EQ(report.verdict, Verdict::problems);
    EXPECT_EQ(exit_status(report.verdict), 1);
}

TEST(Doctor, NoDriverIsInconclusiveAndSaysWhatWasLookedFor) {
    DoctorInput input;
    input.parts = {
        PartStatus{
            .what = "NVML library", .found = false, .detail = "cannot load libnvidia-ml.so.1"},
        PartStatus{
            .what = "nvidia-smi", .found = false, .detail = "nvidia-smi: not found on PATH"}};
    input.simulate_hint = "pcie-rtx6000ada-2x-iommu";
    const auto report = diagnose(input);
    EXPECT_EQ(report.verdict, Verdict::inconclusive);
    ASSERT_EQ(report.findings.size(), 1U);
    EXPECT_EQ(report.findings[0].id(), "no_nvidia_driver");
    EXPECT_NE(report.findings[0].message.find("libnvidia-ml.so.1"), std::string::npos);
    EXPECT_NE(report.findings[0].remedy.find("--simulate pcie-rtx6000ada-2x-iommu doctor"),
              std::string::npos);
}

TEST(Doctor, PcieOnBareMetalWithTranslatingIommuIsAProblemButNotUnderAHypervisor) {
    DoctorInput input;
    input.parts = {PartStatus{.what = "nvidia-smi", .found = true}};
    input.discovery.topology = two_gpus("00000000:41:00.0", "00000000:81:00.0");
    input.host.iommu = model::IommuMode::translating;
    input.host.hypervisor = false;
    auto report = diagnose(input);
    EXPECT_EQ(report.verdict, Verdict::problems);
    ASSERT_FALSE(report.findings.empty());
    EXPECT_EQ(report.findings[0].id(), "pcie_p2p_under_translating_iommu");
    EXPECT_NE(report.findings[0].message.find("GPU 0 to GPU 1 is NODE"), std::string::npos);
    input.host.hypervisor = true;
    EXPECT_EQ(diagnose(input).verdict, Verdict::healthy);
}

const char* const kGpuAer =
    "pcieport 0000:40:01.1: AER: Uncorrected (Non-Fatal) error received: 0000:41:00.0\n"
    "nvidia 0000:41:00.0: AER: PCIe Bus Error: severity=Uncorrected (Non-Fatal), "
    "type=Transaction Layer, (Requester ID)\n"
    "nvidia 0000:41:00.0: AER:    [14] CmpltTO                (First)\n";

TEST(KernelFindings, AnUncorrectedAerReportOfAGpuIsAnErrorOnThatGpu) {
    const auto topology = two_gpus("00000000:41:00.0", "00000000:81:00.0");
    const auto findings = kernel_findings(sources::host::parse_kernel_log(kGpuAer), &topology);
    ASSERT_EQ(findings.size(), 1U);
    EXPECT_EQ(findings[0].id(), "pcie_aer_logged_nonfatal");
    EXPECT_EQ(findings[0].severity, Severity::error);
    EXPECT_EQ(findings[0].gpus, std::vector<int>{0});
    EXPECT_NE(findings[0].message.find("Transaction Layer: CmpltTO"), std::string::npos)
        << findings[0].message;
    EXPECT_NE(findings[0].message.find("reported by port 0000:40:01.1"), std::string::npos);
    EXPECT_NE(findings[0].remedy.find("NCCL_P2P_LEVEL=NVL"), std::string::npos);
}

TEST(KernelFindings, AnAerStormOnTheRootPortAboveAGpuIsAFindingOnThatGpu) {
    const auto events = sources::host::parse_kernel_log(
        "pcieport 0000:80:01.1: AER: Corrected error received: 0000:80:01.1\n"
        "pcieport 0000:80:01.1: AER: PCIe Bus Error: severity=Corrected, type=Data Link Layer, "
        "(Transmitter ID)\n"
        "pcieport 0000:80:01.1: AER:    [12] Timeout\n");
    const auto topology = two_gpus("00000000:41:00.0", "00000000:81:00.0");
    const std::map<model::PciAddress, std::vector<int>> through{
        {model::PciAddress::parse("0000:80:01.1").value(), {1}}};
    const auto findings = kernel_findings(events, &topology, through);
    ASSERT_EQ(findings.size(), 1U);
    EXPECT_EQ(findings[0].id(), "pcie_aer_logged_corrected");
    EXPECT_EQ(findings[0].severity, Severity::warning);
    EXPECT_EQ(findings[0].gpus, std::vector<int>{1});
    EXPECT_NE(findings[0].message.find("on the path of GPU 1"), std::string::npos)
        << findings[0].message;
    const auto alone = kernel_findings(events, &topology);
    ASSERT_EQ(alone.size(), 1U);
    EXPECT_EQ(alone[0].severity, Severity::info) << "without the paths, no GPU is named";
    EXPECT_TRUE(alone[0].gpus.empty());
}

TEST(KernelFindings, AFatalSxidIsAnErrorOfTheSwitchNotAGpuXid) {
    const auto events = sources::host::parse_kernel_log(
        "nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 20034, Fatal, Link 63 LTSSM Fault Up\n"
        "nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 20034, Severity 1 Engine instance 63\n"
        "nvidia-nvswitch3: SXid (PCI:0000:04:00.0): 22013, Non-fatal, Link 44 Minion Link\n");
    const auto topology = two_gpus("00000000:05:00.0", "00000000:81:00.0");
    const auto findings = kernel_findings(events, &topology);
    ASSERT_EQ(findings.size(), 2U);
    EXPECT_EQ(findings[0].id(), "sxid_20034");
    EXPECT_EQ(findings[0].severity, Severity::error);
    EXPECT_FALSE(findings[0].xid.has_value());
    EXPECT_TRUE(findings[0].gpus.empty()) << "a switch's address is never a GPU's";
    EXPECT_EQ(findings[0].pci_bus_id, "00000000:05:00.0");
    EXPECT_NE(findings[0].message.find("fatal, link 63: LTSSM Fault Up; once"), std::string::npos)
        << findings[0].message;
    EXPECT_EQ(findings[0].line,
              "nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 20034, Fatal, Link 63 "
              "LTSSM Fault Up");
    EXPECT_EQ(findings[1].id(), "sxid_22013");
    EXPECT_EQ(findings[1].severity, Severity::warning);
}

TEST(KernelFindings, AnXid79AndTheFallenOffLineAfterItAreOneFinding) {
    const auto events = sources::host::parse_kernel_log(
        "NVRM: Xid (PCI:0000:41:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the "
        "bus.\n"
        "NVRM: GPU 0000:41:00.0: GPU has fallen off the bus.\n"
        "NVRM: GPU at 0000:81:00.0 has fallen off the bus.\n");
    ASSERT_EQ(events.size(), 3U);
    const auto topology = two_gpus("00000000:41:00.0", "00000000:81:00.0");
    const auto findings = kernel_findings(events, &topology);
    ASSERT_EQ(findings.size(), 2U);
    EXPECT_EQ(findings[0].id(), "xid_79");
    EXPECT_EQ(findings[0].gpus, std::vector<int>{0});
    EXPECT_EQ(findings[1].id(), "xid_79");
    EXPECT_EQ(findings[1].gpus, std::vector<int>{1});
}

// Xid 154 names the recovery action another Xid requires; its severity is that action's.
TEST(KernelFindings, Xid154IsAsBadAsTheRecoveryActionItNames) {
    const auto events = sources::host::parse_kernel_log(
        "NVRM: Xid (PCI:0000:41:00): 154, GPU recovery action changed from 0x0 (None) to 0x1 "
        "(GPU Reset Required)\n"
        "NVRM: Xid (PCI:0000:81:00): 154, GPU recovery action changed from 0x1 (GPU Reset "
        "Required) to 0x0 (None)\n");
    const auto topology = two_gpus("00000000:41:00.0", "00000000:81:00.0");
    const auto findings = kernel_findings(events, &topology);
    ASSERT_EQ(findings.size(), 2U);
    EXPECT_EQ(findings[0].severity, Severity::error) << findings[0].message;
    EXPECT_NE(findings[0].message.find("GPU Reset Required"), std::string::npos)
        << findings[0].message;
    EXPECT_EQ(findings[1].severity, Severity::info) << "back to None: nothing left to do";
    const auto drain = kernel_findings(
        sources::host::parse_kernel_log("NVRM: Xid (PCI:0000:41:00): 154, GPU recovery action "
                                        "changed from 0x0 (None) to 0x2 (Drain P2P)\n"),
        &topology);
    ASSERT_EQ(drain.size(), 1U);
    EXPECT_EQ(drain[0].severity, Severity::error) << "no peer traffic on this GPU";
}

}  // namespace
}  // namespace peergate::policy::doctor
