// SPDX-License-Identifier: Apache-2.0
#include "cli/topology_input.hpp"

#include "sources/discovery/topology_tiers.hpp"
#include "sources/smi/topo_m_parser.hpp"
#include "util/atomic_file.hpp"
#include "util/strings.hpp"

namespace peergate::cli {

model::Discovery discover(const Invocation& inv, const std::string& source, bool crosscheck) {
    sources::DiscoveryRequest request;
    request.tier = source == "nvml"  ? sources::TierChoice::nvml
                   : source == "smi" ? sources::TierChoice::smi
                                     : sources::TierChoice::automatic;
    request.crosscheck = crosscheck || inv.env.is_one("PEERGATE_TOPO_CROSSCHECK") ||
                         inv.env.is_one("UNSLOTH_P2P_TOPO_CROSSCHECK");
    return sources::discover_topology(inv.seams, inv.env, request);
}

model::Discovery read_topology_file(const std::string& path) {
    model::Discovery discovery;
    model::TierAttempt attempt{.tier = "file"};
    auto text = util::read_file(path);
    if (!text) {
        attempt.reason = text.error().message;
    } else if (auto topology = sources::smi::parse_topo_m(*text)) {
        topology->source = model::TopologySource::file;
        topology->provenance = path;
        attempt.topology = std::move(*topology);
    } else {
        attempt.reason = path + ": " + topology.error().message;
    }
    discovery.topology = attempt.topology;
    discovery.reason = attempt.reason;
    discovery.attempts.push_back(std::move(attempt));
    return discovery;
}

}  // namespace peergate::cli
