// SPDX-License-Identifier: Apache-2.0
// NCCL's topology file: the tree NCCL itself builds from sysfs (ncclTopoGetXmlFromSys climbs
// two directories at a time), link speed and width as NCCL derives them, no <gpu> or <nvlink>
// (NCCL reads those from NVML at init), and the GPUs left to NCCL's own detection.
#include "report/exports/nccl_topo.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

namespace peergate::report::exports {
namespace {

model::PciAddress pci(const char* text) {
    return *model::PciAddress::parse(text);
}

model::PciAttributes gpu_attributes(const char* speed, int numa) {
    return {.pci_class = "0x030200",
            .vendor = "0x10de",
            .device = "0x2330",
            .subsystem_vendor = "0x10de",
            .subsystem_device = "0x16c1",
            .max_link_speed = speed,
            .max_link_width = 16,
            .numa_node = numa};
}

model::PciAttributes port_attributes(const char* vendor, const char* speed, int numa) {
    return {.pci_class = "0x060400",
            .vendor = vendor,
            .device = "0x8747",
            .subsystem_vendor = vendor,
            .subsystem_device = "0x8747",
            .max_link_speed = speed,
            .max_link_width = 16,
            .numa_node = numa};
}

std::vector<model::PciPort> ports(std::initializer_list<const char*> nearest_first) {
    std::vector<model::PciPort> out;
    for (const char* port : nearest_first) {
        out.push_back({.address = pci(port)});
    }
    return out;
}

// GPUs 0 and 1 behind one PCIe switch (downstream ports 02:08.0 and 02:10.0, upstream port
// 01:00.0) on root port 00:01.0 of NUMA node 0, NVLinked to each other with 4 links; GPU 2
// straight on root port 80:01.0 of NUMA node 1.
ExportFacts switched_host() {
    ExportFacts facts;
    model::Topology topology;
    const char* buses[] = {"0000:03:00.0", "0000:04:00.0", "0000:81:00.0"};
    for (int i = 0; i < 3; ++i) {
        topology.gpus.push_back({.index = i, .pci = pci(buses[i]), .numa_node = i < 2 ? 0 : 1});
    }
    facts.doctor.discovery.lone_gpu = topology;
    facts.doctor.ports[0] = ports({"0000:02:08.0", "0000:01:00.0", "0000:00:01.0"});
    facts.doctor.ports[1] = ports({"0000:02:10.0", "0000:01:00.0", "0000:00:01.0"});
    facts.doctor.ports[2] = ports({"0000:80:01.0"});
    for (int i = 0; i < 2; ++i) {  // NVML's walk, which the file leaves to NCCL
        facts.doctor.links.push_back({.gpu = i, .slots = 4, .to_switch = 0});
    }
    facts.pci[pci(buses[0])] = gpu_attributes("32.0 GT/s PCIe", 0);
    facts.pci[pci(buses[1])] = gpu_attributes("32.0 GT/s PCIe", 0);
    facts.pci[pci(buses[2])] = gpu_attributes("32.0 GT/s PCIe", 1);
    facts.pci[pci("0000:02:08.0")] = port_attributes("0x10b5", "16.0 GT/s PCIe", 0);
    facts.pci[pci("0000:02:10.0")] = port_attributes("0x10b5", "16.0 GT/s PCIe", 0);
    facts.pci[pci("0000:01:00.0")] = port_attributes("0x10b5", "16.0 GT/s PCIe", 0);
    facts.pci[pci("0000:00:01.0")] = port_attributes("0x8086", "16.0 GT/s PCIe", 0);
    facts.pci[pci("0000:80:01.0")] = port_attributes("0x8086", "32.0 GT/s PCIe", 1);
    facts.numa_cpumaps = {{0, "00000000,0000ffff"}, {1, "00000000,ffff0000"}};
    facts.run = {.version = "0.1.0", .node_name = "gpu-node-07"};
    return facts;
}

TEST(ExportNcclTopo, GpusHangFromTheSwitchUpstreamPortAsNcclBuildsIt) {
    // The GPUs are leaves: NCCL adds <gpu dev sm> and the <nvlink>s NVML reports at init, so
    // a link that went down after the file was written is not shown to NCCL as NVLink.
    const std::string expected =
        R"(<system version="1" name="peergate 0.1.0 gpu-node-07">
  <cpu numaid="0" affinity="00000000,0000ffff">
    <pci busid="0000:01:00.0" class="0x060400" vendor="0x10b5" device="0x8747" subsystem_vendor="0x10b5" subsystem_device="0x8747" link_speed="16.0 GT/s PCIe" link_width="16">
      <pci busid="0000:03:00.0" class="0x030200" vendor="0x10de" device="0x2330" subsystem_vendor="0x10de" subsystem_device="0x16c1" link_speed="16.0 GT/s PCIe" link_width="16"/>
      <pci busid="0000:04:00.0" class="0x030200" vendor="0x10de" device="0x2330" subsystem_vendor="0x10de" subsystem_device="0x16c1" link_speed="16.0 GT/s PCIe" link_width="16"/>
    </pci>
  </cpu>
  <cpu numaid="1" affinity="00000000,ffff0000">
    <pci busid="0000:81:00.0" class="0x030200" vendor="0x10de" device="0x2330" subsystem_vendor="0x10de" subsystem_device="0x16c1" link_speed="32.0 GT/s PCIe" link_width="16"/>
  </cpu>
</system>
)";
    EXPECT_EQ(export_nccl_topo(switched_host()), expected);
    EXPECT_TRUE(nccl_topo_left_out(switched_host()).empty());
}

TEST(ExportNcclTopo, ANicBehindTheGpusSwitchSitsBesideThemAndBusIdsCanBeRenamed) {
    auto facts = switched_host();
    // A ConnectX (InfiniBand, class 0x0207) on downstream port 02:18.0 of the GPUs' switch.
    facts.nics.push_back(
        {.path = {.device = pci("0000:05:00.0"),
                  .ports = ports({"0000:02:18.0", "0000:01:00.0", "0000:00:01.0"})}});
    facts.pci[pci("0000:05:00.0")] = {.pci_class = "0x020700", .numa_node = 0};
    facts.pci[pci("0000:02:18.0")] = port_attributes("0x10b5", "16.0 GT/s PCIe", 0);
    auto text = export_nccl_topo(facts);
    EXPECT_THAT(
        text,
        testing::ContainsRegex("\n      <pci busid=\"0000:04:00.0\"[^\n]*/>\n"
                               "      <pci busid=\"0000:05:00.0\" class=\"0x020700\" "
                               "link_speed=\"16.0 GT/s PCIe\" link_width=\"16\"/>\n    </pci>"));
    // The same tree for a VM that sees the GPUs and the NIC at other bus ids.
    facts.bus_renames = {{pci("0000:03:00.0"), pci("0000:0a:00.0")},
                         {pci("0000:05:00.0"), pci("0000:0b:00.0")}};
    text = export_nccl_topo(facts);
    EXPECT_THAT(text, testing::HasSubstr("<pci busid=\"0000:0a:00.0\" class=\"0x030200\""));
    EXPECT_THAT(text, testing::HasSubstr("<pci busid=\"0000:0b:00.0\" class=\"0x020700\""));
    EXPECT_THAT(text, testing::Not(testing::HasSubstr("0000:03:00.0")));
    EXPECT_TRUE(nccl_topo_unused_renames(facts).empty());
    facts.bus_renames[pci("0000:99:00.0")] = pci("0000:0c:00.0");
    EXPECT_EQ(nccl_topo_unused_renames(facts), std::vector<model::PciAddress>{pci("0000:99:00.0")});
}

// NCCL merges a card's virtual functions into it (NCCL_IB_MERGE_VFS=1): no leaf of their own.
TEST(ExportNcclTopo, AVirtualFunctionIsNotALeaf) {
    auto facts = switched_host();
    const auto below = ports({"0000:02:18.0", "0000:01:00.0", "0000:00:01.0"});
    facts.nics.push_back({.path = {.device = pci("0000:05:00.0"), .ports = below}});
    facts.nics.push_back({.path = {.device = pci("0000:05:00.2"), .ports = below},
                          .physical_function = pci("0000:05:00.0")});
    facts.pci[pci("0000:05:00.0")] = {.pci_class = "0x020700", .numa_node = 0};
    facts.pci[pci("0000:05:00.2")] = {.pci_class = "0x020700", .numa_node = 0};
    const auto text = export_nccl_topo(facts);
    EXPECT_THAT(text, testing::HasSubstr("<pci busid=\"0000:05:00.0\""));
    EXPECT_THAT(text, testing::Not(testing::HasSubstr("0000:05:00.2")));
}

TEST(ExportNcclTopo, TwoSwitchLevelsKeepBothUpstreamPorts) {
    auto facts = switched_host();
    // GPU 0 behind a second switch (downstream 06:00.0, upstream 05:00.0) on port 02:08.0.
    facts.doctor.ports[0] =
        ports({"0000:06:00.0", "0000:05:00.0", "0000:02:08.0", "0000:01:00.0", "0000:00:01.0"});
    for (const char* port : {"0000:06:00.0", "0000:05:00.0"}) {
        facts.pci[pci(port)] = port_attributes("0x10b5", "16.0 GT/s PCIe", 0);
    }
    const auto text = export_nccl_topo(facts);
    // 05:00.0 one level below 01:00.0 (six spaces), GPU 0 one below it.
    EXPECT_THAT(text,
                testing::ContainsRegex("\n      <pci busid=\"0000:05:00.0\"[^\n]*>\n"
                                       "        <pci busid=\"0000:03:00.0\""));
    EXPECT_THAT(text, testing::Not(testing::HasSubstr("0000:06:00.0")));
    EXPECT_THAT(text, testing::Not(testing::HasSubstr("0000:02:08.0")));
}

// NCCL writes width 0 where it finds no parent width, which it reads as x16 whatever the
// lanes: the file gives the end that is known, and no width where neither end is.
TEST(ExportNcclTopo, LinkIsTheSlowerEndAndUnderTheRootBusTheDevicesOwn) {
    auto facts = switched_host();
    facts.pci[pci("0000:02:08.0")].max_link_speed = "8.0 GT/s PCIe";
    facts.pci[pci("0000:02:08.0")].max_link_width = 8;
    facts.pci[pci("0000:80:01.0")].max_link_speed = "Unknown";  // read as no limit, as NCCL does
    facts.pci[pci("0000:80:01.0")].max_link_width.reset();
    auto text = export_nccl_topo(facts);
    EXPECT_THAT(
        text,
        testing::HasSubstr("<pci busid=\"0000:03:00.0\" class=\"0x030200\" vendor=\"0x10de\" "
                           "device=\"0x2330\" subsystem_vendor=\"0x10de\" "
                           "subsystem_device=\"0x16c1\" link_speed=\"8.0 GT/s PCIe\" "
                           "link_width=\"8\"/>"));
    const std::string gpu2 =
        "<pci busid=\"0000:81:00.0\" class=\"0x030200\" vendor=\"0x10de\" "
        "device=\"0x2330\" subsystem_vendor=\"0x10de\" "
        "subsystem_device=\"0x16c1\" link_speed=\"32.0 GT/s PCIe\" "
        "link_width=\"16\"/>";
    EXPECT_THAT(text, testing::HasSubstr(gpu2));
    facts.pci[pci("0000:80:01.0")] = port_attributes("0x8086", "16.0 GT/s PCIe", 1);
    facts.doctor.ports[2].clear();  // GPU 2 straight on the root bus: no parent port
    text = export_nccl_topo(facts);
    EXPECT_THAT(text, testing::HasSubstr(gpu2));
    facts.pci[pci("0000:81:00.0")].max_link_width.reset();
    facts.pci[pci("0000:81:00.0")].max_link_speed.clear();
    text = export_nccl_topo(facts);
    EXPECT_THAT(text, testing::HasSubstr("subsystem_device=\"0x16c1\"/>"));
}

// What ncclTopoAddCpu reads (NCCL src/graph/topo.cc): arch in NCCL's words, and on x86 the
// vendor, and the family as NCCL's own cpuid reading gives it (base plus extended << 4).
TEST(ExportNcclTopo, EachCpuSaysWhatKindItIsInNcclsTerms) {
    auto facts = switched_host();
    facts.cpu = {.arch = "x86_64", .vendor = "AuthenticAMD", .family = 25, .model = 17};
    EXPECT_THAT(export_nccl_topo(facts),
                testing::HasSubstr("<cpu numaid=\"0\" affinity=\"00000000,0000ffff\" "
                                   "arch=\"x86_64\" vendor=\"AuthenticAMD\" familyid=\"175\" "
                                   "modelid=\"17\">"));
    facts.cpu = {.arch = "x86_64", .vendor = "GenuineIntel", .family = 6, .model = 143};
    EXPECT_THAT(export_nccl_topo(facts),
                testing::HasSubstr("arch=\"x86_64\" vendor=\"GenuineIntel\" familyid=\"6\" "
                                   "modelid=\"143\">"));
    facts.cpu = {.arch = "aarch64", .vendor = "", .family = std::nullopt, .model = std::nullopt};
    EXPECT_THAT(export_nccl_topo(facts),
                testing::HasSubstr("affinity=\"00000000,0000ffff\" arch=\"arm64\">"));
    facts.cpu = {
        .arch = "x86_64", .vendor = "GenuineIntel", .family = std::nullopt, .model = std::nullopt};
    EXPECT_THAT(export_nccl_topo(facts), testing::HasSubstr("vendor=\"GenuineIntel\">"));
    facts.cpu = {.arch = "riscv64", .vendor = "", .family = std::nullopt, .model = std::nullopt};
    EXPECT_THAT(export_nccl_topo(facts), testing::HasSubstr("affinity=\"00000000,0000ffff\">"));
}

TEST(ExportNcclTopo, GpusWithoutAPathOrANumaNodeAreLeftToNccl) {
    auto facts = switched_host();
    facts.doctor.ports.erase(1);
    facts.pci[pci("0000:81:00.0")].numa_node.reset();
    facts.doctor.ports[2].clear();
    const auto text = export_nccl_topo(facts);
    EXPECT_THAT(text, testing::Not(testing::HasSubstr("0000:04:00.0")));
    EXPECT_THAT(text, testing::Not(testing::HasSubstr("numaid=\"1\"")));
    EXPECT_THAT(nccl_topo_left_out(facts),
                testing::ElementsAre("GPU 1: its PCIe path in sysfs was not read",
                                     "GPU 2: sysfs gave no numa_node for 0000:81:00.0"));
}

TEST(ExportNcclTopo, TheClimbStopsAtADirectoryThatIsNotATwelveCharacterBusId) {
    auto facts = switched_host();
    // A VMD domain: NCCL's bus id check fails on "10000:00:02.0", so it takes the CPU there.
    facts.doctor.ports[2] = ports({"0000:80:01.0", "10000:00:02.0", "0000:00:03.0"});
    facts.pci[pci("0000:80:01.0")].numa_node = 1;
    const auto text = export_nccl_topo(facts);
    EXPECT_THAT(text,
                testing::HasSubstr("<cpu numaid=\"1\" affinity=\"00000000,ffff0000\">\n"
                                   "    <pci busid=\"0000:81:00.0\""));
}

TEST(ExportNcclTopo, ValuesNcclsReaderWouldMisreadAreLeftOut) {
    auto facts = switched_host();
    facts.pci[pci("0000:81:00.0")].subsystem_device = "0x16\"c1";
    facts.run.node_name = "node<1>";
    const auto text = export_nccl_topo(facts);
    EXPECT_THAT(text, testing::StartsWith("<system version=\"1\">\n"));
    EXPECT_THAT(text,
                testing::HasSubstr("subsystem_vendor=\"0x10de\" link_speed=\"32.0 GT/s PCIe\""));
}

}  // namespace
}  // namespace peergate::report::exports
