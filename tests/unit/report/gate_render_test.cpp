// SPDX-License-Identifier: Apache-2.0
#include "report/gate/render.hpp"

#include <gtest/gtest.h>

namespace peergate::report::gate {
namespace {

policy::gate::GateDecision vetoed() {
    policy::gate::GateDecision d;
    d.selection = {0, 1};
    d.selection_source = "gpus";
    d.p2p = false;
    d.rule = "every_pair_nvlink";
    d.reason = d.veto = "GPU 0 to GPU 1 is NODE, not NVLink";
    d.set = {{"CUDA_DEVICE_ORDER", "PCI_BUS_ID", "pin"}, {"WEIRD", "it's $HOME `x`", "quote me"}};
    d.unset = {{"GGML_CUDA_P2P", "off value"}};
    d.kept = {{"NCCL_P2P_LEVEL", "SYS", "user"}};
    d.warnings = {"careful"};
    d.topology_source = model::TopologySource::nvidia_smi;
    d.iommu = model::IommuMode::translating;
    return d;
}

TEST(GateRender, JsonFollowsTheContract) {
    const auto doc = gate_to_json(vetoed());
    std::vector<std::string> keys;
    for (const auto& item : doc.items()) {
        keys.push_back(item.key());
    }
    const std::vector<std::string> contract = {"schema",
                                               "selection",
                                               "p2p",
                                               "veto",
                                               "set",
                                               "unset",
                                               "kept",
                                               "warnings",
                                               "topology_source",
                                               "iommu"};
    ASSERT_GE(keys.size(), contract.size());
    EXPECT_EQ(std::vector<std::string>(keys.begin(), keys.begin() + 10), contract);
    EXPECT_EQ(doc["schema"], "peergate.gate/v1");
    EXPECT_EQ(doc["selection"], nlohmann::ordered_json::array({0, 1}));
    EXPECT_EQ(doc["veto"], "GPU 0 to GPU 1 is NODE, not NVLink");
    EXPECT_EQ(doc["set"]["CUDA_DEVICE_ORDER"], "PCI_BUS_ID");
    EXPECT_EQ(doc["unset"], nlohmann::ordered_json::array({"GGML_CUDA_P2P"}));
    EXPECT_EQ(doc["kept"]["NCCL_P2P_LEVEL"], "SYS");
    EXPECT_EQ(doc["topology_source"], "nvidia-smi");
    EXPECT_EQ(doc["iommu"], "translating");
    EXPECT_EQ(doc["rule"], "every_pair_nvlink");

    auto allowed = vetoed();
    allowed.p2p = true;
    allowed.veto.clear();
    EXPECT_TRUE(gate_to_json(allowed)["veto"].is_null());
}

TEST(GateRender, ShellLinesQuoteEverything) {
    EXPECT_EQ(shell_quote("plain"), "'plain'");
    EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
    EXPECT_EQ(shell_quote(""), "''");
    const std::string shell = gate_to_shell(vetoed());
    EXPECT_EQ(shell,
              "# peergate: P2P vetoed: GPU 0 to GPU 1 is NODE, not NVLink\n"
              "# warning: careful\n"
              "unset GGML_CUDA_P2P\n"
              "export CUDA_DEVICE_ORDER='PCI_BUS_ID'\n"
              "export WEIRD='it'\\''s $HOME `x`'\n");
}

// `eval "$(peergate gate --format shell)"` runs this text: a newline in a reason or warning
// (they quote inherited values and file names) must not end its comment and start a command.
TEST(GateRender, ShellCommentsStayOnTheirLine) {
    auto d = vetoed();
    d.reason = "vetoed\ntouch /tmp/pwned-reason";
    d.warnings = {"GGML_CUDA_P2P='1\ntouch /tmp/pwned-warning' set by the user is kept"};
    const std::string shell = gate_to_shell(d);
    std::size_t start = 0;
    while (start < shell.size()) {
        const std::size_t end = shell.find('\n', start);
        const std::string line = shell.substr(start, end - start);
        EXPECT_TRUE(line.starts_with("# ") || line.starts_with("unset ") ||
                    line.starts_with("export "))
            << line;
        start = end + 1;
    }
}

TEST(GateRender, TextAndLogLine) {
    const std::string text = gate_to_text(vetoed());
    EXPECT_NE(
        text.find("P2P vetoed: GPU 0 to GPU 1 is NODE, not NVLink [rule every_pair_nvlink]\n"),
        std::string::npos);
    EXPECT_NE(text.find("unset GGML_CUDA_P2P: off value\n"), std::string::npos);
    EXPECT_NE(text.find("kept NCCL_P2P_LEVEL=SYS: user\n"), std::string::npos);
    EXPECT_NE(text.find("warning: careful\n"), std::string::npos);
    const std::string line = gate_to_log_line(vetoed());
    EXPECT_EQ(line.find('\n'), std::string::npos);
    EXPECT_EQ(
        line.rfind(
            "P2P vetoed: GPU 0 to GPU 1 is NODE, not NVLink; set CUDA_DEVICE_ORDER=PCI_BUS_ID", 0),
        0U);
    EXPECT_NE(line.find("; unset GGML_CUDA_P2P; kept NCCL_P2P_LEVEL=SYS"), std::string::npos);
}

// Whether any CUDA program can start, after the fixed fields (issue 52): null rule and reason
// where usable; where not, said in every format, once where the P2P line already gave why.
TEST(GateRender, AnUnusableNodeIsSaidInEveryFormat) {
    const auto usable = gate_to_json(vetoed());
    EXPECT_EQ(usable["node_usable"], true);
    EXPECT_TRUE(usable["node_rule"].is_null());
    EXPECT_TRUE(usable["node_reason"].is_null());
    EXPECT_EQ(gate_to_text(vetoed()).find("node unusable"), std::string::npos);

    auto d = vetoed();
    d.rule = "disable_p2p";
    d.node = {.usable = false, .rule = "cuda_unavailable", .reason = "cuInit failed: 802\nX"};
    const auto doc = gate_to_json(d);
    EXPECT_EQ(doc["node_usable"], false);
    EXPECT_EQ(doc["node_rule"], "cuda_unavailable");
    EXPECT_EQ(doc["node_reason"], "cuInit failed: 802\nX");
    EXPECT_NE(
        gate_to_text(d).find("\nnode unusable: cuInit failed: 802 X [rule cuda_unavailable]\n"),
        std::string::npos)
        << gate_to_text(d);
    EXPECT_NE(gate_to_shell(d).find("\n# peergate: node unusable: cuInit failed: 802 X [rule "
                                    "cuda_unavailable]\n"),
              std::string::npos)
        << gate_to_shell(d);
    d.rule = "cuda_unavailable";
    EXPECT_NE(gate_to_text(d).find("\nnode unusable: no CUDA program can start [rule "
                                   "cuda_unavailable]\n"),
              std::string::npos)
        << gate_to_text(d);
}

}  // namespace
}  // namespace peergate::report::gate
