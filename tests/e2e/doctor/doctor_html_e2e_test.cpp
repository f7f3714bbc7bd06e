// SPDX-License-Identifier: Apache-2.0
// peergate doctor --html FILE end to end: the page is written whole, or not at all.
#include "support/peergate_process.hpp"
#include "util/atomic_file.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <iterator>
#include <string>

namespace peergate::test {
namespace {

namespace fs = std::filesystem;

fs::path scratch(const std::string& name) {
    const auto dir = fs::temp_directory_path() /
                     ("peergate-doctor-html-" + name + "-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

TEST(DoctorHtmlCli, WritesThePageBesideTheUsualOutput) {
    const auto dir = scratch("write");
    const auto page = (dir / "doctor.html").string();
    const auto run =
        run_peergate({"--simulate", "pcie-rtx6000ada-2x-iommu", "doctor", "--html", page});
    EXPECT_EQ(run.process.exit_code, 1) << run.process.err;
    EXPECT_NE(run.process.out.find("Verdict: problems"), std::string::npos);
    const auto text = util::read_file(page);
    ASSERT_TRUE(text.has_value());
    EXPECT_NE(text->find("<title>peergate doctor: problems</title>"), std::string::npos);
    EXPECT_NE(text->find("pcie_p2p_under_translating_iommu"), std::string::npos);
    EXPECT_NE(text->find("<td>GPU0 -&gt; GPU1</td><td>NODE</td>"), std::string::npos) << *text;
    EXPECT_NE(text->find("<td>NVIDIA kernel module</td><td>570.86.15</td><td>open</td>"),
              std::string::npos);
    EXPECT_NE(text->find("<td>kernel</td><td>6.8.0-48-generic</td>"), std::string::npos);
    fs::remove_all(dir);
}

TEST(DoctorHtmlCli, APathThatCannotBeReplacedIsAnErrorAndLeavesNoTemporary) {
    const auto dir = scratch("keep");
    const auto page = dir / "doctor.html";
    fs::create_directories(page / "inside");  // a directory where the page would go
    const auto run = run_peergate({"--simulate", "hgx-b200-8x", "doctor", "--html", page.string()});
    EXPECT_EQ(run.process.exit_code, 2);
    EXPECT_NE(run.process.err.find("--html: "), std::string::npos) << run.process.err;
    EXPECT_TRUE(fs::is_directory(page / "inside"));
    EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator{}), 1);
    fs::remove_all(dir);
}

TEST(DoctorHtmlCli, AMissingDirectoryIsAnErrorNamingThePath) {
    const auto run = run_peergate(
        {"--simulate", "hgx-b200-8x", "doctor", "--html", "/nonexistent-peergate-dir/d.html"});
    EXPECT_EQ(run.process.exit_code, 2);
    EXPECT_NE(run.process.err.find("/nonexistent-peergate-dir/d.html"), std::string::npos)
        << run.process.err;
}

}  // namespace
}  // namespace peergate::test
