// SPDX-License-Identifier: Apache-2.0
// The PEERGATE_TRUST_PROBE=1 hint (policy/gate/gate.cpp, issue 52): given only where trusting
// the cached probe's passes would change the decision.
#include "gate_test_support.hpp"
#include "policy/gate/gate.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

namespace peergate::policy::gate {
namespace {

using namespace peergate::test;  // NOLINT(google-build-using-namespace)

bool hints_trust(const GateDecision& d) {
    return std::any_of(d.warnings.begin(), d.warnings.end(), [](const std::string& w) {
        return w.find("PEERGATE_TRUST_PROBE=1") != std::string::npos;
    });
}

// Issue 52: the PEERGATE_TRUST_PROBE=1 hint only where setting it would change the decision.
TEST(GateTrustHint, GivenOnlyWhereTrustingTheCacheWouldAllowP2p) {
    auto pcie = input(pcie_box(2, "NVIDIA L40S"), gpus({0, 1}));
    pcie.untrusted_probe_passes = {{0, 1}, {1, 0}};
    const auto helps = decide(pcie);
    EXPECT_FALSE(helps.p2p);
    EXPECT_TRUE(helps.trust_would_allow);
    EXPECT_TRUE(hints_trust(helps));

    auto nvlink = input(uniform_nvlink(8));
    nvlink.untrusted_probe_passes = {{0, 1}, {1, 0}};
    const auto allowed = decide(nvlink);
    EXPECT_TRUE(allowed.p2p);
    EXPECT_FALSE(allowed.trust_would_allow) << "every pair is allowed already";
    EXPECT_FALSE(hints_trust(allowed));

    auto lossy = pcie;
    lossy.probe = ProbeVerdict{.pair_level = true, .lost_pairs = {{0, 1}}};
    const auto vetoed = decide(lossy);
    EXPECT_EQ(vetoed.rule, "probe_failed");
    EXPECT_FALSE(vetoed.trust_would_allow) << "a loss vetoes whatever the cache vouches for";
    EXPECT_FALSE(hints_trust(vetoed));

    auto partial = pcie;
    partial.untrusted_probe_passes = {{0, 1}};
    EXPECT_FALSE(decide(partial).trust_would_allow) << "one direction does not vouch for both";
}

}  // namespace
}  // namespace peergate::policy::gate
