// SPDX-License-Identifier: Apache-2.0
#include "pipeline/discover.hpp"

#include "sources/discovery/topology_tiers.hpp"

namespace peergate::pipeline {

model::Discovery discover(const Context& ctx,
                          const std::string& source,
                          bool crosscheck,
                          util::Expected<nvml::NvmlRecord>* nvml_record) {
    sources::DiscoveryRequest request;
    request.nvml_record = nvml_record;
    request.tier = source == "nvml"  ? sources::TierChoice::nvml
                   : source == "smi" ? sources::TierChoice::smi
                                     : sources::TierChoice::automatic;
    request.crosscheck = crosscheck || ctx.env.is_one("PEERGATE_TOPO_CROSSCHECK") ||
                         ctx.env.is_one("UNSLOTH_P2P_TOPO_CROSSCHECK");
    return sources::discover_topology(ctx.seams, ctx.env, request);
}

}  // namespace peergate::pipeline
