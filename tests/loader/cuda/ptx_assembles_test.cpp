// SPDX-License-Identifier: Apache-2.0
// The hand-written PTX (cuda_kernels.cpp, cuda_peer_ptx.cpp) assembled by NVIDIA's own ptxas
// wherever the CUDA toolkit is installed: for sm_75 (the oldest target CUDA 13's ptxas takes)
// and sm_90 (H100/H200). The simulated driver loads the same text in every other loader and
// e2e test; a real driver JIT-compiles it (scripts/device-check.sh).
#include "sources/cuda/cuda_kernels.hpp"
#include "util/subprocess.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace peergate {
namespace {

namespace fs = std::filesystem;

std::string find_ptxas() {
    for (const char* candidate : {"/usr/local/cuda/bin/ptxas", "/usr/bin/ptxas"}) {
        if (fs::exists(candidate)) {
            return candidate;
        }
    }
    return "";
}

class PtxAssembles : public ::testing::TestWithParam<const char*> {};

TEST_P(PtxAssembles, ForEachTarget) {
    const std::string ptxas = find_ptxas();
    if (ptxas.empty()) {
        GTEST_SKIP() << "no ptxas here (the CUDA toolkit is not installed)";
    }
    const fs::path dir = fs::temp_directory_path() /
                         ("peergate-ptxas-" + std::to_string(::getpid()) + "-" + GetParam());
    fs::create_directories(dir);
    const std::pair<const char*, const char*> modules[] = {{"probe", sources::cuda::kProbePtx},
                                                           {"peer", sources::cuda::kPeerPtx}};
    for (const auto& [name, text] : modules) {
        const fs::path source = dir / (std::string(name) + ".ptx");
        std::ofstream(source) << text;
        util::Command command;
        command.argv = {ptxas,
                        std::string("-arch=") + GetParam(),
                        source.string(),
                        "-o",
                        (dir / (std::string(name) + ".cubin")).string()};
        command.timeout = std::chrono::seconds(60);
        const auto run = util::run_process(command);
        ASSERT_TRUE(run.has_value());
        EXPECT_EQ(run->exit_code, 0) << name << ": " << run->err;
    }
    fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Targets, PtxAssembles, ::testing::Values("sm_75", "sm_90"));

}  // namespace
}  // namespace peergate
