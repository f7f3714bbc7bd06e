// SPDX-License-Identifier: Apache-2.0
// Which /dev/nvidiaN belongs to which GPU: the driver's /proc entry (sources/host/device_minor).
#include "sources/host/device_minor.hpp"

#include "support/fixture_files.hpp"
#include "util/atomic_file.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>

namespace peergate::sources::host {
namespace {

namespace fs = std::filesystem;

TEST(DeviceMinor, ReadsTheDriversLine) {
    const auto text =
        test::read_fixture("host", "proc-driver-nvidia/gtx-titan-x-0000-65-00.0-information.txt");
    EXPECT_EQ(parse_device_minor(text), 1);
    EXPECT_EQ(parse_device_minor("Model: \t\t NVIDIA B200\nDevice Minor: \t 7\r\n"), 7);
}

TEST(DeviceMinor, NothingUsableIsNothing) {
    EXPECT_EQ(parse_device_minor(""), std::nullopt);
    EXPECT_EQ(parse_device_minor("Model: x\n"), std::nullopt);
    EXPECT_EQ(parse_device_minor("Device Minor: seven\n"), std::nullopt);
    EXPECT_EQ(parse_device_minor("Device Minor: -1\n"), std::nullopt);
    EXPECT_EQ(parse_device_minor("Device Minor:\n"), std::nullopt);
}

TEST(DeviceMinor, ReadsEachGpuUnderTheHostRoot) {
    const fs::path root =
        fs::temp_directory_path() / ("peergate-minor-" + std::to_string(::getpid()));
    const fs::path entry = root / "proc/driver/nvidia/gpus/0000:65:00.0";
    fs::create_directories(entry);
    ASSERT_TRUE(util::write_file_atomically((entry / "information").string(),
                                            "Bus Location: \t 0000:65:00.0\nDevice Minor: \t 0\n"));
    std::vector<model::Gpu> gpus(3);
    gpus[0].index = 0;
    gpus[0].pci = model::PciAddress::parse("00000000:17:00.0").value();  // no entry
    gpus[1].index = 1;
    gpus[1].pci = model::PciAddress::parse("00000000:65:00.0").value();
    gpus[2].index = 2;  // no bus id
    const auto minors = read_device_minors(HostRoot(root.string()), gpus);
    EXPECT_EQ(minors, (std::map<int, int>{{1, 0}}));
    fs::remove_all(root);
}

}  // namespace
}  // namespace peergate::sources::host
