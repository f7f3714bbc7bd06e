// SPDX-License-Identifier: Apache-2.0
// One node verdict in every export (issue 35 item 1, docs/export.md "What the node's state
// means"): an NVSwitch board whose fabric manager has not registered the GPUs is unusable in
// NFD, in Prometheus and in the fleet's line, while a healthy one allows P2P and a lossy PCIe
// pair is usable with P2P vetoed.
#include "support/peergate_process.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <string>

namespace peergate::test {
namespace {

struct Case {
    std::string machine;
    const char* state;
    const char* usable;
    const char* code;
};

TEST(ExportNodeState, EveryExportSaysTheSameState) {
    for (const Case& c :
         {Case{fixture_machine("fabric-in-progress-8x"), "unusable", "false", "cuda_unavailable"},
          Case{"hgx-b200-8x", "p2p-allowed", "true", "every_pair_nvlink"},
          Case{"pcie-rtx6000ada-2x-iommu", "p2p-vetoed", "true", ""}}) {
        const auto nfd = run_peergate({"--simulate", c.machine, "export", "nfd"});
        const std::string prefix = "peergate.feature.node.kubernetes.io/";
        EXPECT_NE(nfd.process.out.find(prefix + "node.state=" + c.state + "\n"), std::string::npos)
            << c.machine << "\n"
            << nfd.process.out;
        EXPECT_NE(nfd.process.out.find(prefix + "node.usable=" + c.usable + "\n"),
                  std::string::npos)
            << c.machine;
        if (*c.code != '\0') {
            EXPECT_NE(nfd.process.out.find(prefix + "node.reason=" + c.code + "\n"),
                      std::string::npos)
                << c.machine << "\n"
                << nfd.process.out;
        }
        const auto prom = run_peergate({"--simulate", c.machine, "export", "prometheus"});
        std::string metric_state = c.state;
        std::replace(metric_state.begin(), metric_state.end(), '-', '_');
        EXPECT_NE(prom.process.out.find("peergate_node_state{state=\"" + metric_state + "\"} 1\n"),
                  std::string::npos)
            << c.machine;
        EXPECT_NE(prom.process.out.find(std::string("peergate_node_usable ") +
                                        (std::string(c.usable) == "true" ? "1" : "0") + "\n"),
                  std::string::npos)
            << c.machine;
        const auto line = run_peergate({"--simulate", c.machine, "fleet", "node", "--one-line"});
        const auto doc = nlohmann::json::parse(line.process.out.substr(line.process.out.find('{')));
        EXPECT_EQ(doc.value("state", ""), c.state) << line.process.out;
    }
}

}  // namespace
}  // namespace peergate::test
