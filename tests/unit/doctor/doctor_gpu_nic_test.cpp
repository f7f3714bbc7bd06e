// SPDX-License-Identifier: Apache-2.0
// GPUs and network functions below one PCIe switch, and where ACS sends GPUDirect RDMA
// between them (policy/doctor/gpu_nic.cpp).
#include "policy/doctor/gpu_nic.hpp"
#include "support/pci_builders.hpp"

#include <gtest/gtest.h>

#include <map>

namespace peergate::policy::doctor {
namespace {

using test::port;

// Switch A (03:00.0, downstream ports 04:xx with `a_acs`) holds GPUs 0 and 1 and NIC 07:00.0;
// switch B (81:00.0, downstream ports 82:xx, ACS off) holds GPU 2 and NIC 85:00.0; a third
// NIC sits on a root port of its own.
DoctorInput two_switches(std::uint16_t a_acs) {
    DoctorInput input;
    const auto below_a = [&](const char* downstream) {
        return std::vector<model::PciPort>{
            port(downstream, a_acs), port("0000:03:00.0", {}), port("0000:00:01.0", 0x1d)};
    };
    const auto below_b = [&](const char* downstream) {
        return std::vector<model::PciPort>{
            port(downstream, 0x0000), port("0000:81:00.0", {}), port("0000:80:01.0", 0x1d)};
    };
    input.ports[0] = below_a("0000:04:08.0");
    input.ports[1] = below_a("0000:04:10.0");
    input.ports[2] = below_b("0000:82:08.0");
    input.nics = {
        {.path = {.device = test::pci("0000:07:00.0"), .ports = below_a("0000:04:18.0")}},
        {.path = {.device = test::pci("0000:85:00.0"), .ports = below_b("0000:82:18.0")}},
        {.path = {.device = test::pci("0000:c1:00.0"), .ports = {port("0000:c0:01.0", 0x1d)}}},
    };
    return input;
}

TEST(GpuNicPaths, OnlyGpusAndNicsBelowOneSwitch) {
    const auto paths = gpu_nic_paths(two_switches(0x0000));
    ASSERT_EQ(paths.size(), 3U);
    EXPECT_EQ(paths[0].gpu, 0);
    EXPECT_EQ(paths[0].nic.to_sysfs(), "0000:07:00.0");
    EXPECT_EQ(paths[0].path.shared->to_sysfs(), "0000:03:00.0");
    EXPECT_EQ(paths[1].gpu, 1);
    EXPECT_EQ(paths[2].gpu, 2);
    EXPECT_EQ(paths[2].nic.to_sysfs(), "0000:85:00.0");
    for (const auto& path : paths) {
        EXPECT_EQ(path.path.state, AcsPath::State::off);
    }
    EXPECT_FALSE(acs_redirect_nic_finding(paths).has_value());
}

// An SR-IOV virtual function of the NIC beside GPUs 0 and 1 sits where its card does: the
// card's paths stand for it, as they do in NCCL, which merges it into the card.
TEST(GpuNicPaths, AVirtualFunctionAddsNoPath) {
    auto input = two_switches(0x0000);
    auto vf = input.nics[0];
    vf.path.device = test::pci("0000:07:00.2");
    vf.physical_function = input.nics[0].path.device;
    input.nics.push_back(vf);
    EXPECT_EQ(gpu_nic_paths(input).size(), 3U);
}

TEST(GpuNicPaths, RedirectBetweenAGpuAndItsNicIsAWarning) {
    const auto finding = acs_redirect_nic_finding(gpu_nic_paths(two_switches(0x001d)));
    ASSERT_TRUE(finding.has_value());
    EXPECT_EQ(finding->id(), "acs_redirect_nic");
    EXPECT_EQ(finding->severity, model::Severity::warning);
    EXPECT_EQ(finding->gpus, (std::vector<int>{0, 1}));
    EXPECT_NE(finding->message.find("GPU 0 and network device 0000:07:00.0 sit below the same "
                                    "PCIe port (0000:03:00.0), but ACS redirect is on at "
                                    "0000:04:08.0"),
              std::string::npos)
        << finding->message;
    EXPECT_NE(finding->message.find("; 1 more GPU-NIC pair likewise"), std::string::npos);
    EXPECT_NE(finding->remedy.find("NCCL_NET_GDR_LEVEL=LOC"), std::string::npos);
    EXPECT_NE(finding->remedy.find("pci=disable_acs_redir=0000:04:08.0"), std::string::npos);
}

TEST(GpuNicPaths, NoPeerMemoryModuleIsANoteWhereAGpuHasANicBesideIt) {
    const auto paths = gpu_nic_paths(two_switches(0x0000));
    model::HostFacts host{.peer_memory_module = ""};
    const auto finding = peer_memory_finding(paths, host, {});
    ASSERT_TRUE(finding.has_value());
    EXPECT_EQ(finding->id(), "gdr_no_peer_memory");
    EXPECT_EQ(finding->severity, model::Severity::info);
    EXPECT_EQ(finding->gpus, (std::vector<int>{0, 1, 2}));
    EXPECT_NE(finding->message.find("GPUs 0,1,2 share a PCIe switch with a network device"),
              std::string::npos)
        << finding->message;
    EXPECT_NE(finding->message.find("whether DMA-BUF can stand in was not read"),
              std::string::npos);
    EXPECT_NE(finding->remedy.find("modprobe nvidia-peermem"), std::string::npos);
    for (const auto& loaded : {std::optional<std::string>("nvidia_peermem"),
                               std::optional<std::string>("nv_peer_mem"),
                               std::optional<std::string>()}) {  // unknown: no claim
        host.peer_memory_module = loaded;
        EXPECT_FALSE(peer_memory_finding(paths, host, {}).has_value());
    }
    host.peer_memory_module = "";
    EXPECT_FALSE(peer_memory_finding({}, host, {}).has_value());  // no NIC beside any GPU
}

TEST(GpuNicPaths, DmaBufOnEveryGpuBesideANicStandsInForThePeerMemoryModule) {
    const auto paths = gpu_nic_paths(two_switches(0x0000));
    model::HostFacts host{.peer_memory_module = "", .kernel_release = "6.8.0-49-generic"};
    const std::map<int, bool> all{{0, true}, {1, true}, {2, true}, {3, false}};  // 3: no NIC
    EXPECT_FALSE(peer_memory_finding(paths, host, all).has_value());
    host.kernel_release = "";  // unread: CUDA's word is taken
    EXPECT_FALSE(peer_memory_finding(paths, host, all).has_value());
}

TEST(GpuNicPaths, AKernelBefore512KeepsDmaBufFromTheNic) {
    const auto paths = gpu_nic_paths(two_switches(0x0000));
    const model::HostFacts host{
        .peer_memory_module = "",
        .nvidia_module = model::NvidiaKernelModule{.flavour = model::KernelModuleFlavour::open,
                                                   .version = "555.58.02"},
        .kernel_release = "5.4.0-150-generic"};
    const auto finding = peer_memory_finding(paths, host, {{0, true}, {1, true}, {2, true}});
    ASSERT_TRUE(finding.has_value());
    EXPECT_NE(finding->message.find("Linux 5.4.0-150-generic predates 5.12"), std::string::npos)
        << finding->message;
    EXPECT_NE(finding->remedy.find("on Linux 5.12 or later"), std::string::npos);
}

TEST(GpuNicPaths, TheProprietaryModuleIsNamedWhereCudaSaysNoDmaBuf) {
    const auto paths = gpu_nic_paths(two_switches(0x0000));
    const model::HostFacts host{
        .peer_memory_module = "",
        .nvidia_module =
            model::NvidiaKernelModule{.flavour = model::KernelModuleFlavour::proprietary,
                                      .version = "515.76"},
        .kernel_release = "6.8.0-49-generic"};
    const auto finding = peer_memory_finding(paths, host, {{0, true}, {1, false}, {2, false}});
    ASSERT_TRUE(finding.has_value());
    EXPECT_NE(finding->message.find("the CUDA driver reports no DMA-BUF support on GPUs 1,2 "
                                    "(the proprietary kernel module 515.76: only the open one "
                                    "exports DMA-BUF)"),
              std::string::npos)
        << finding->message;
    EXPECT_NE(finding->remedy.find("install the open GPU kernel modules"), std::string::npos);
}

TEST(GdrMemory, APeerMemoryModuleThenDmaBufThenWhatRulesItOut) {
    const auto open = model::NvidiaKernelModule{.flavour = model::KernelModuleFlavour::open,
                                                .version = "580.95.05"};
    const auto proprietary = model::NvidiaKernelModule{
        .flavour = model::KernelModuleFlavour::proprietary, .version = "515.76"};
    const std::map<int, bool> yes{{0, true}, {1, true}};
    const std::map<int, bool> mixed{{0, true}, {1, false}};

    struct Case {
        const char* name;
        model::HostFacts host;
        std::map<int, bool> dma_buf;
        GdrMemory expected;
    };

    const Case cases[] = {
        {"peermem loaded", {.peer_memory_module = "nvidia_peermem"}, mixed, GdrMemory::peermem},
        {"dma-buf everywhere",
         {.peer_memory_module = "", .nvidia_module = open, .kernel_release = "6.8.0"},
         yes,
         GdrMemory::dmabuf},
        {"dma-buf, /sys/module unread", {.kernel_release = "6.8.0"}, yes, GdrMemory::dmabuf},
        {"one GPU says no", {.peer_memory_module = ""}, mixed, GdrMemory::none},
        {"old kernel", {.peer_memory_module = "", .kernel_release = "5.4.0"}, yes, GdrMemory::none},
        {"proprietary, CUDA unread",
         {.peer_memory_module = "", .nvidia_module = proprietary},
         {},
         GdrMemory::none},
        {"open, CUDA unread",
         {.peer_memory_module = "", .nvidia_module = open},
         {},
         GdrMemory::unknown},
        {"nothing read", {}, {}, GdrMemory::unknown},
        {"/sys/module unread, one GPU says no",
         {.kernel_release = "6.8.0"},
         mixed,
         GdrMemory::unknown},
    };
    for (const auto& c : cases) {
        EXPECT_EQ(gdr_memory(c.host, c.dma_buf), c.expected) << c.name;
    }
    EXPECT_EQ(to_string(GdrMemory::dmabuf), "dmabuf");
}

TEST(GpuNicPaths, NoNicsOrNoPortsSayNothing) {
    auto input = two_switches(0x001d);
    input.nics.clear();
    EXPECT_TRUE(gpu_nic_paths(input).empty());
    input = two_switches(0x001d);
    input.ports.clear();
    EXPECT_TRUE(gpu_nic_paths(input).empty());
}

}  // namespace
}  // namespace peergate::policy::doctor
