// SPDX-License-Identifier: Apache-2.0
// Where no source described the GPUs, the veto says why, with the reader's own reason
// (issue 33 item 4): not "no GPU is selected: there is no peer".
#include "policy/gate/gate.hpp"

#include <gtest/gtest.h>

namespace peergate::policy::gate {
namespace {

GateInput unread_host(Selection selection) {
    GateInput in;
    in.topology_reason =
        "nvidia-smi: nvidia-smi topo -m output is unreadable: no header line with GPU columns";
    in.selection = std::move(selection);
    return in;
}

TEST(GateUnreadableReason, TheVetoQuotesTheReader) {
    for (const auto& selection :
         {Selection::inherit(), Selection::all(), Selection::list({0, 1})}) {
        const auto decision = decide(unread_host(selection));
        EXPECT_FALSE(decision.p2p);
        EXPECT_NE(decision.reason.find("no source described the GPUs"), std::string::npos)
            << decision.reason;
        EXPECT_NE(decision.reason.find("no header line with GPU columns"), std::string::npos)
            << decision.reason;
    }
}

TEST(GateUnreadableReason, AReadHostKeepsItsOwnWords) {
    GateInput in;
    in.gpus = {model::Gpu{.index = 0, .name = "NVIDIA B200"}};
    in.topology_reason = "unreadable";
    in.selection = Selection::all();
    const auto decision = decide(in);
    EXPECT_EQ(decision.rule, "single_gpu");
    EXPECT_EQ(decision.reason.find("no source described"), std::string::npos) << decision.reason;
}

}  // namespace
}  // namespace peergate::policy::gate
