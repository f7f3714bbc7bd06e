// SPDX-License-Identifier: Apache-2.0
// p2p_slower_than_peers (policy/doctor/pairs.cpp): a pair under half the median P2P rate of
// the pairs joined the same way, from a `peergate bench` result given to the doctor.
#include "policy/doctor/pairs.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace peergate::policy::doctor {
namespace {

using model::Finding;

// Every ordered pair of `n` GPUs joined by `label`, each measured at `gbps`.
std::vector<PairLayers> measured(int n, const std::string& label, double gbps) {
    std::vector<PairLayers> pairs;
    for (int a = 0; a < n; ++a) {
        for (int b = 0; b < n; ++b) {
            if (a != b) {
                pairs.push_back(PairLayers{.src = a, .dst = b, .label = label, .p2p_gbps = gbps});
            }
        }
    }
    return pairs;
}

PairLayers& pair(std::vector<PairLayers>& pairs, int src, int dst) {
    return *std::find_if(pairs.begin(), pairs.end(), [&](const PairLayers& p) {
        return p.src == src && p.dst == dst;
    });
}

const Finding* slow(const std::vector<Finding>& findings) {
    const auto it = std::find_if(findings.begin(), findings.end(), [](const Finding& f) {
        return f.id() == "p2p_slower_than_peers";
    });
    return it == findings.end() ? nullptr : &*it;
}

TEST(DoctorBandwidth, ALinkFarBelowItsKindIsAWarningNamingIt) {
    auto pairs = measured(4, "NV18", 370.0);
    pair(pairs, 0, 3).p2p_gbps = 120.0;
    pair(pairs, 3, 0).p2p_gbps = 118.5;
    const auto findings = pair_findings(pairs);
    const Finding* f = slow(findings);
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->severity, model::Severity::warning);
    EXPECT_EQ(f->gpus, (std::vector<int>{0, 3}));
    EXPECT_NE(f->message.find("GPU 0 -> GPU 3: NV18 at 120.0 GB/s, where the NV18 pairs' median is "
                              "370.0 GB/s; 1 more ordered pairs"),
              std::string::npos)
        << f->message;
}

TEST(DoctorBandwidth, OrdinarySpreadIsNotNamed) {
    auto pairs = measured(4, "NV18", 370.0);
    pair(pairs, 1, 2).p2p_gbps = 200.0;  // over half the median
    EXPECT_EQ(slow(pair_findings(pairs)), nullptr);
}

TEST(DoctorBandwidth, KindsAreComparedOnlyWithThemselves) {
    // Two NVLinked pairs and PCIe between them: PCIe is slower by nature, not a fault.
    auto pairs = measured(4, "NODE", 24.0);
    for (auto* p :
         {&pair(pairs, 0, 1), &pair(pairs, 1, 0), &pair(pairs, 2, 3), &pair(pairs, 3, 2)}) {
        p->label = "NV12";
        p->p2p_gbps = 180.0;
    }
    EXPECT_EQ(slow(pair_findings(pairs)), nullptr);
}

TEST(DoctorBandwidth, TooFewPairsOfAKindToCompare) {
    auto pairs = measured(2, "NV4", 50.0);  // two ordered pairs
    pair(pairs, 0, 1).p2p_gbps = 5.0;
    EXPECT_EQ(slow(pair_findings(pairs)), nullptr);
}

TEST(DoctorBandwidth, NoBenchResultSaysNothing) {
    auto pairs = measured(4, "NV18", 370.0);
    for (auto& p : pairs) {
        p.p2p_gbps.reset();
    }
    EXPECT_EQ(slow(pair_findings(pairs)), nullptr);
}

}  // namespace
}  // namespace peergate::policy::doctor
