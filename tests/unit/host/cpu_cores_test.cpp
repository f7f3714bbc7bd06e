// SPDX-License-Identifier: Apache-2.0
// Slurm's logical core numbers from sysfs (sources/host/cpu_cores), on the DGX-1's two
// 20-core Xeon E5-2698 v4 with hyperthreads: CPUs 0-19 and 40-59 on package 0, 20-39 and
// 60-79 on package 1, whose core_id values skip (0-4, 8-12, 16-20, 24-28) as Broadwell's do.
#include "sources/host/cpu_cores.hpp"

#include "util/atomic_file.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <array>
#include <filesystem>

namespace peergate::sources::host {
namespace {

namespace fs = std::filesystem;

constexpr std::array<int, 20> kBroadwellCoreIds = {0,  1,  2,  3,  4,  8,  9,  10, 11, 12,
                                                   16, 17, 18, 19, 20, 24, 25, 26, 27, 28};

void write_cpu(const fs::path& root, int cpu, int package, int core) {
    const auto dir = root / ("sys/devices/system/cpu/cpu" + std::to_string(cpu)) / "topology";
    fs::create_directories(dir);
    ASSERT_TRUE(util::write_file_atomically((dir / "physical_package_id").string(),
                                            std::to_string(package) + "\n"));
    ASSERT_TRUE(
        util::write_file_atomically((dir / "core_id").string(), std::to_string(core) + "\n"));
}

fs::path dgx1_sysfs() {
    const auto root = fs::temp_directory_path() / ("peergate-cores-" + std::to_string(::getpid()));
    fs::remove_all(root);
    for (int cpu = 0; cpu < 80; ++cpu) {
        const int package = (cpu / 20) % 2;
        write_cpu(root, cpu, package, kBroadwellCoreIds[static_cast<std::size_t>(cpu % 20)]);
    }
    fs::create_directories(root / "sys/devices/system/cpu/cpufreq");  // not a CPU
    return root;
}

TEST(CpuCores, HyperthreadsShareTheirCoresIndexAndPackagesNumberInTurn) {
    const auto root = dgx1_sysfs();
    const auto cores = logical_cores(HostRoot(root.string()));
    ASSERT_EQ(cores.size(), 80U);
    EXPECT_EQ(cores.at(0), 0);
    EXPECT_EQ(cores.at(5), 5);  // core_id 8, the sixth core
    EXPECT_EQ(cores.at(19), 19);
    EXPECT_EQ(cores.at(40), 0);
    EXPECT_EQ(cores.at(20), 20);
    EXPECT_EQ(cores.at(79), 39);
    fs::remove_all(root);
}

TEST(CpuCores, AnOfflineCpuWithoutTopologyIsLeftOut) {
    const auto root = dgx1_sysfs();
    fs::remove_all(root / "sys/devices/system/cpu/cpu79/topology");
    const auto cores = logical_cores(HostRoot(root.string()));
    EXPECT_EQ(cores.size(), 79U);
    EXPECT_EQ(cores.at(59), 19);
    fs::remove_all(root);
}

TEST(CpuCores, NoSysfsIsNoAnswer) {
    EXPECT_TRUE(logical_cores(HostRoot("/nonexistent-peergate-root")).empty());
}

}  // namespace
}  // namespace peergate::sources::host
