// SPDX-License-Identifier: Apache-2.0
// peergate export nccl-topo end to end on simulated machines: Python's XML parser and the
// rules of NCCL's reader (tests/scripts/check_nccl_topo.py) judge every file, and each GPU
// lands where NCCL's own detection would put it, with nothing NCCL reads from NVML.
#include "support/peergate_process.hpp"
#include "support/sim_machines.hpp"
#include "util/atomic_file.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>

namespace peergate::test {
namespace {

namespace fs = std::filesystem;

// What check_nccl_topo.py said of a file: its exit status, its summary (one line per GPU) and
// its reason for refusing it; nullopt when there is no python3 to run it.
struct Judgement {
    int exit_code = -1;
    std::string out;
    std::string err;
};

std::optional<Judgement> judge(const std::string& xml, bool strict = false) {
    if (!fs::exists("/usr/bin/python3")) {
        return std::nullopt;
    }
    const auto file =
        fs::temp_directory_path() / ("peergate-nccl-topo-" + std::to_string(::getpid()) + ".xml");
    EXPECT_TRUE(util::write_file_atomically(file.string(), xml).has_value());
    util::Command run;
    run.argv = {"/usr/bin/python3",
                std::string(PEERGATE_TEST_SCRIPTS) + "/check_nccl_topo.py",
                file.string()};
    if (strict) {
        run.argv.emplace_back("--strict");
    }
    run.env = clean_env();
    run.timeout = std::chrono::seconds(60);
    const auto result = util::run_process(run);
    fs::remove(file);
    EXPECT_TRUE(result.has_value());
    if (!result) {
        return Judgement{};
    }
    return Judgement{result->exit_code, result->out, result->err};
}

// The summary of a file the checker must accept; "" with a failure when it rejects it.
std::optional<std::string> judged(const std::string& xml, bool strict = false) {
    const auto judgement = judge(xml, strict);
    if (judgement && judgement->exit_code != 0) {
        ADD_FAILURE() << judgement->err << "\nof:\n" << xml;
        return "";
    }
    return judgement ? std::optional(judgement->out) : std::nullopt;
}

std::string export_of(const std::string& machine, std::vector<std::string> more = {}) {
    std::vector<std::string> args = {"--simulate", machine, "export", "nccl-topo"};
    args.insert(args.end(), more.begin(), more.end());
    const auto run = run_peergate(args);
    EXPECT_EQ(run.process.exit_code, 0) << run.process.err;
    return run.process.out;
}

TEST(ExportNcclTopoCli, NvlinkedGpusAreLeavesUnderTheirNumaNode) {
    for (const char* machine : {"dgx1-v100", "hgx-b200-8x"}) {
        SCOPED_TRACE(machine);
        const auto xml = export_of(machine);
        EXPECT_THAT(xml, testing::Not(testing::HasSubstr("<gpu")));
        EXPECT_THAT(xml, testing::Not(testing::HasSubstr("nvlink")));
        const auto summary = judged(xml);
        if (!summary) {
            GTEST_SKIP() << "python3 is not installed";
        }
        EXPECT_EQ(std::count(summary->begin(), summary->end(), '\n'), 8);
        // dgx1-v100's machine file has no PCIe switches; hgx-b200-8x's GPUs hang from theirs.
        EXPECT_THAT(*summary,
                    testing::HasSubstr(std::string(machine) == "dgx1-v100"
                                           ? "numaid=1 depth=0"
                                           : "busid=0000:9d:00.0 numaid=1 depth=1 link=32.0 "
                                             "GT/s PCIe,16\n"));
    }
    // A GPU on a root bus has no port above it: its own link is the whole link.
    EXPECT_THAT(
        export_of("dgx1-v100"),
        testing::HasSubstr("<cpu numaid=\"0\" affinity=\"0fffff00,000fffff\" arch=\"x86_64\" "
                           "vendor=\"GenuineIntel\" familyid=\"6\" modelid=\"79\">\n"
                           "    <pci busid=\"0000:06:00.0\" class=\"0x030200\" "
                           "vendor=\"0x10de\" device=\"0x1db5\" link_speed=\"8.0 GT/s PCIe\" "
                           "link_width=\"16\"/>\n"));
}

// Every built-in machine's file carries each attribute NCCL's reader requires or uses, so NCCL
// in a VM, which cannot fill them from its own sysfs, reads the host as it is.
TEST(ExportNcclTopoCli, EveryBuiltInMachineCarriesWhatNcclsReaderUses) {
    // NCCL's familyid is cpuid's base family plus the extended family shifted by 4 (xml.cc):
    // 175 for AMD's family 25, where /proc/cpuinfo says 25.
    const std::map<std::string, std::string> cpus = {
        {"bridged-a100-4x", "vendor=\"AuthenticAMD\" familyid=\"175\" modelid=\"1\""},
        {"dgx1-v100", "vendor=\"GenuineIntel\" familyid=\"6\" modelid=\"79\""},
        {"hgx-b200-8x", "vendor=\"GenuineIntel\" familyid=\"6\" modelid=\"143\""},
        {"pcie-rtx6000ada-2x-iommu", "vendor=\"GenuineIntel\" familyid=\"6\" modelid=\"143\""},
        {"rtx4090-8x-pcie", "vendor=\"AuthenticAMD\" familyid=\"175\" modelid=\"17\""},
        {"single-h200", "vendor=\"GenuineIntel\" familyid=\"6\" modelid=\"207\""}};
    for (const auto& machine : builtin_machine_names()) {
        SCOPED_TRACE(machine);
        const auto xml = export_of(machine);
        EXPECT_THAT(xml, testing::HasSubstr(" arch=\"x86_64\" " + cpus.at(machine) + ">"));
        const auto summary = judged(xml, /*strict=*/true);
        if (!summary) {
            GTEST_SKIP() << "python3 is not installed";
        }
        EXPECT_EQ(std::count(summary->begin(), summary->end(), '\n'),
                  load_builtin_machine(machine).gpus.size())
            << *summary;
    }
    // A switch is named by all four ids (NCCL recognises Broadcom's own switches by them).
    EXPECT_THAT(
        export_of("hgx-b200-8x"),
        testing::HasSubstr("<pci busid=\"0000:9b:00.0\" class=\"0x060400\" vendor=\"0x1000\" "
                           "device=\"0xc030\" subsystem_vendor=\"0x15d9\" "
                           "subsystem_device=\"0x1d25\" link_speed=\"32.0 GT/s PCIe\" "
                           "link_width=\"16\">"));
}

TEST(ExportNcclTopoCli, GpusBehindASwitchHangFromItsUpstreamPort) {
    const auto xml = export_of(fixture_machine("acs-redirect-4x"));
    EXPECT_THAT(xml,
                testing::HasSubstr("<cpu numaid=\"1\">\n"
                                   "    <pci busid=\"0000:81:00.0\" class=\"0x060400\""));
    EXPECT_THAT(xml, testing::Not(testing::HasSubstr("0000:82:08.0")));  // downstream: skipped
    // The fixture names no CPU and no link: the file says nothing of them, and the checker
    // names the first attribute NCCL's reader would not find.
    EXPECT_THAT(xml, testing::Not(testing::HasSubstr("link_width")));
    EXPECT_THAT(xml, testing::Not(testing::HasSubstr("arch=")));
    const auto judgement = judge(xml);
    if (!judgement) {
        GTEST_SKIP() << "python3 is not installed";
    }
    EXPECT_EQ(judgement->exit_code, 1);
    EXPECT_EQ(judgement->err,
              "check_nccl_topo: <cpu numaid='0'>: no arch, which NCCL's ncclTopoAddCpu requires\n");
}

TEST(ExportNcclTopoCli, ASelectionAndALoneGpuAreDescribedToo) {
    auto xml = export_of("bridged-a100-4x", {"--gpus", "2,3"});  // 0000:17, 31, b1, ca
    EXPECT_THAT(xml, testing::HasSubstr("<pci busid=\"0000:b1:00.0\""));
    EXPECT_THAT(xml, testing::Not(testing::HasSubstr("<pci busid=\"0000:17:00.0\"")));
    xml = export_of("single-h200");
    EXPECT_THAT(xml, testing::HasSubstr("<pci busid=\"0000:18:00.0\""));
}

TEST(ExportNcclTopoCli, WrittenAtomicallyBesideOtherFormats) {
    const auto dir =
        fs::temp_directory_path() / ("peergate-nccl-topo-out-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const auto run = run_peergate({"--simulate",
                                   "hgx-b200-8x",
                                   "export",
                                   "nccl-topo",
                                   "--output",
                                   (dir / "topo.xml").string(),
                                   "--also",
                                   "nccl-topo=" + (dir / "again.xml").string()});
    ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
    const auto first = util::read_file((dir / "topo.xml").string());
    ASSERT_TRUE(first.has_value());
    EXPECT_THAT(*first, testing::StartsWith("<system version=\"1\""));
    EXPECT_EQ(util::read_file((dir / "again.xml").string()).value_or(""), *first);
    EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator{}), 2);
    fs::remove_all(dir);
}

TEST(ExportNcclTopoCli, BusIdsAreWrittenAsTheVmSeesThemOrRefusedWithWhy) {
    auto xml = export_of("dgx1-v100", {"--bus-id", "0000:06:00.0=0000:05:00.0"});
    EXPECT_THAT(xml, testing::HasSubstr("<pci busid=\"0000:05:00.0\" class=\"0x030200\""));
    EXPECT_THAT(xml, testing::Not(testing::HasSubstr("0000:06:00.0")));
    const std::vector<std::pair<std::vector<std::string>, std::string>> wrong = {
        {{"nccl-topo", "--bus-id", "0000:99:00.0=0000:05:00.0"},
         "--bus-id: 0000:99:00.0 is no GPU, NIC or port the file describes"},
        {{"nccl-topo", "--bus-id", "0000:06:00.0"}, "--bus-id 0000:06:00.0: expected HOST=VM"},
        {{"nccl-topo",
          "--bus-id",
          "0000:06:00.0=0000:05:00.0",
          "--bus-id",
          "0000:07:00.0=0000:05:00.0"},
         "a bus id given twice"},
        {{"dot", "--bus-id", "0000:06:00.0=0000:05:00.0"}, "--bus-id applies to nccl-topo only"},
    };
    for (const auto& [args, why] : wrong) {
        std::vector<std::string> all = {"--simulate", "dgx1-v100", "export"};
        all.insert(all.end(), args.begin(), args.end());
        const auto run = run_peergate(all);
        EXPECT_EQ(run.process.exit_code, 2) << why;
        EXPECT_THAT(run.process.err, testing::HasSubstr(why));
        EXPECT_EQ(run.process.out, "");
    }
}

TEST(ExportNcclTopoCli, NoGpuIsNothingToDescribe) {
    const auto run = run_peergate({"export", "nccl-topo"});
    EXPECT_EQ(run.process.exit_code, 2);
    EXPECT_THAT(run.process.err, testing::HasSubstr("export nccl-topo: no GPU topology"));
}

}  // namespace
}  // namespace peergate::test
