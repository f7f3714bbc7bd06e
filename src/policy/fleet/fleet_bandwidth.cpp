// SPDX-License-Identifier: Apache-2.0
#include "policy/fleet/fleet_bandwidth.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

namespace peergate::policy::fleet {

namespace {

constexpr std::size_t kMinSamples = 4;
constexpr std::size_t kMinNodes = 2;
constexpr double kOutlierShare = 0.5;

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size();
    return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

struct ClassSamples {
    std::vector<double> rates;
    std::set<std::string> nodes;
};

std::map<std::string, ClassSamples> samples_by_link(
    const std::vector<const model::FleetNode*>& nodes) {
    std::map<std::string, ClassSamples> by_link;
    for (const auto* node : nodes) {
        for (const auto& rate : node->bandwidth) {
            if (!rate.link.empty() && rate.p2p_gbps > 0) {
                by_link[rate.link].rates.push_back(rate.p2p_gbps);
                by_link[rate.link].nodes.insert(node->node);
            }
        }
    }
    return by_link;
}

// One message per node: its pairs under half their class's median.
std::vector<BandwidthOutlier> outliers(const std::vector<const model::FleetNode*>& nodes,
                                       const std::vector<FleetLinkClass>& classes) {
    std::vector<BandwidthOutlier> out;
    for (const auto* node : nodes) {
        std::vector<std::string> slow;
        for (const auto& rate : node->bandwidth) {
            const auto cls = std::find_if(
                classes.begin(), classes.end(), [&](const auto& c) { return c.link == rate.link; });
            if (cls != classes.end() && rate.p2p_gbps < kOutlierShare * cls->median_gbps) {
                slow.push_back(
                    fmt::format("GPU{}->GPU{} ({}) {:.1f} GB/s against the fleet's "
                                "median {:.1f}",
                                rate.src,
                                rate.dst,
                                rate.link,
                                rate.p2p_gbps,
                                cls->median_gbps));
            }
        }
        if (!slow.empty()) {
            out.push_back(
                {node->node,
                 fmt::format("{}: P2P under half the fleet's median for its link class: "
                             "{}{}",
                             node->node,
                             fmt::join(slow.begin(),
                                       slow.begin() + static_cast<std::ptrdiff_t>(
                                                          std::min<std::size_t>(slow.size(), 4)),
                                       ", "),
                             slow.size() > 4 ? fmt::format(" and {} more", slow.size() - 4) : "")});
        }
    }
    return out;
}

}  // namespace

BandwidthJudgement judge_bandwidth(const std::vector<const model::FleetNode*>& nodes) {
    BandwidthJudgement judgement;
    for (const auto& [link, samples] : samples_by_link(nodes)) {
        judgement.classes.push_back(FleetLinkClass{.link = link,
                                                   .median_gbps = median(samples.rates),
                                                   .samples = samples.rates.size(),
                                                   .nodes = samples.nodes.size()});
    }
    std::vector<FleetLinkClass> judged;
    std::copy_if(judgement.classes.begin(),
                 judgement.classes.end(),
                 std::back_inserter(judged),
                 [](const auto& c) { return c.samples >= kMinSamples && c.nodes >= kMinNodes; });
    judgement.outliers = outliers(nodes, judged);
    return judgement;
}

}  // namespace peergate::policy::fleet
