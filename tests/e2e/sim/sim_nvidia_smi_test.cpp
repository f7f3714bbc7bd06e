// SPDX-License-Identifier: Apache-2.0
// The built peergate-sim-nvidia-smi, run as a process: what it prints for every built-in
// machine reads back to the machine's matrix, and bad usage is refused.
#include "snapshot/derived.hpp"
#include "sources/smi/query_gpu_parser.hpp"
#include "sources/smi/topo_m_parser.hpp"
#include "support/sim_machines.hpp"

#include <gtest/gtest.h>

namespace peergate {
namespace {

using test::builtin_machine_path;
using test::run_program;

util::EnvMap machine_env(const std::string& machine_path) {
    util::EnvMap env;
    env.set("PEERGATE_SIM_MACHINE", machine_path);
    return env;
}

TEST(SimNvidiaSmiBinary, TopoMReadsBackToEveryBuiltinsMatrix) {
    for (const auto& name : test::builtin_machine_names()) {
        SCOPED_TRACE(name);
        const auto machine = test::load_builtin_machine(name);
        const auto result = run_program({PEERGATE_SIM_NVIDIA_SMI, "topo", "-m"},
                                        machine_env(builtin_machine_path(name)));
        ASSERT_EQ(result.exit_code, 0) << result.err;
        const auto parsed = sources::smi::parse_topo_m(result.out);
        if (machine.gpus.size() < 2) {
            EXPECT_FALSE(parsed.has_value());
            continue;
        }
        ASSERT_TRUE(parsed.has_value()) << parsed.error().message;
        EXPECT_EQ(parsed->matrix, snapshot::machine_topology(machine).matrix);
    }
}

TEST(SimNvidiaSmiBinary, QueryAndListAndP2p) {
    const auto env = machine_env(builtin_machine_path("hgx-b200-8x"));
    const auto query = run_program({PEERGATE_SIM_NVIDIA_SMI,
                                    "--query-gpu=index,name,pci.bus_id,uuid",
                                    "--format=csv,noheader"},
                                   env);
    ASSERT_EQ(query.exit_code, 0) << query.err;
    auto gpus = sources::smi::parse_query_gpu(query.out);
    ASSERT_TRUE(gpus.has_value());
    EXPECT_EQ(gpus->size(), 8U);
    EXPECT_EQ((*gpus)[0].name, "NVIDIA B200");
    const auto spaced = run_program(
        {PEERGATE_SIM_NVIDIA_SMI, "--query-gpu", "index", "--format", "csv,noheader"}, env);
    EXPECT_EQ(spaced.out, "0\n1\n2\n3\n4\n5\n6\n7\n");
    const auto list = run_program({PEERGATE_SIM_NVIDIA_SMI, "-L"}, env);
    EXPECT_TRUE(list.out.starts_with("GPU 0: NVIDIA B200 (UUID: GPU-")) << list.out;
    const auto p2p = run_program({PEERGATE_SIM_NVIDIA_SMI, "topo", "-p2p", "n"}, env);
    EXPECT_EQ(p2p.exit_code, 0);
    EXPECT_NE(p2p.out.find(" GPU0\tX\tOK\tOK"), std::string::npos) << p2p.out;
}

TEST(SimNvidiaSmiBinary, BadUsageAndUnreadableMachineExitTwoWithAMessage) {
    const auto env = machine_env(builtin_machine_path("hgx-b200-8x"));

    struct Case {
        std::vector<std::string> argv;
        util::EnvMap env;
        std::string says;
    };

    const std::vector<Case> cases{
        {{PEERGATE_SIM_NVIDIA_SMI}, env, "usage"},
        {{PEERGATE_SIM_NVIDIA_SMI, "topo", "-x"}, env, "usage"},
        {{PEERGATE_SIM_NVIDIA_SMI, "topo", "-p2p", "q"}, env, "'q' is not one of r, w, n, a, p"},
        {{PEERGATE_SIM_NVIDIA_SMI, "--query-gpu=index", "--format=json"},
         env,
         "not a supported format"},
        {{PEERGATE_SIM_NVIDIA_SMI, "topo", "-m"}, util::EnvMap{}, "PEERGATE_SIM_MACHINE"},
        {{PEERGATE_SIM_NVIDIA_SMI, "topo", "-m"},
         machine_env("/nonexistent.json"),
         "/nonexistent.json"},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.says);
        const auto result = run_program(c.argv, c.env);
        EXPECT_EQ(result.exit_code, 2);
        EXPECT_NE(result.err.find(c.says), std::string::npos) << result.err;
    }
    const auto bogus =
        run_program({PEERGATE_SIM_NVIDIA_SMI, "--query-gpu=bogus", "--format=csv"}, env);
    EXPECT_EQ(bogus.exit_code, 2);
    EXPECT_EQ(bogus.out, "Field \"bogus\" is not a valid field to query.\n");
}

}  // namespace
}  // namespace peergate
