// SPDX-License-Identifier: Apache-2.0
#include "cli/topology_input.hpp"

#include "sim/machine/derived.hpp"
#include "sim/machine/machine_file.hpp"
#include "sources/discovery/topology_tiers.hpp"
#include "sources/smi/topo_m_parser.hpp"
#include "util/atomic_file.hpp"
#include "util/strings.hpp"

namespace peergate::cli {

model::Discovery discover(const Invocation& inv,
                          const std::string& source,
                          bool crosscheck,
                          util::Expected<nvml::NvmlRecord>* nvml_record) {
    sources::DiscoveryRequest request;
    request.nvml_record = nvml_record;
    request.tier = source == "nvml"  ? sources::TierChoice::nvml
                   : source == "smi" ? sources::TierChoice::smi
                                     : sources::TierChoice::automatic;
    request.crosscheck = crosscheck || inv.env.is_one("PEERGATE_TOPO_CROSSCHECK") ||
                         inv.env.is_one("UNSLOTH_P2P_TOPO_CROSSCHECK");
    return sources::discover_topology(inv.seams, inv.env, request);
}

namespace {

// A machine file is JSON; a topo -m text never starts with '{'.
bool looks_like_json(const std::string& text) {
    const auto body = util::trim(text);
    return !body.empty() && body.front() == '{';
}

// A machine file of one GPU fills `lone_gpu` instead: the same rule as every tier, one
// GPU has no pair, so there is no matrix to trust.
util::Expected<model::Topology> topology_of_machine_file(const std::string& text,
                                                         std::optional<model::Topology>& lone_gpu) {
    auto machine = sim::parse_machine(text);
    if (!machine) {
        return util::unexpected(machine.error());
    }
    auto topology = sim::machine_topology(*machine);
    if (topology.size() < 2) {
        if (topology.size() == 1) {
            lone_gpu = std::move(topology);
        }
        return util::unexpected(util::ErrorCode::unavailable,
                                "machine file: fewer than 2 GPUs, no interconnect matrix");
    }
    return topology;
}

}  // namespace

model::Discovery read_topology_file(const std::string& path) {
    model::Discovery discovery;
    model::TierAttempt attempt{.tier = "file"};
    auto text = util::read_file(path);
    if (!text) {
        attempt.reason = text.error().message;
    } else if (auto topology = looks_like_json(*text)
                                   ? topology_of_machine_file(*text, attempt.lone_gpu)
                                   : sources::smi::parse_topo_m(*text)) {
        topology->source = model::TopologySource::file;
        topology->provenance = path;
        attempt.topology = std::move(*topology);
    } else {
        attempt.reason = path + ": " + topology.error().message;
    }
    discovery.topology = attempt.topology;
    discovery.reason = attempt.reason;
    discovery.lone_gpu = attempt.lone_gpu;
    if (discovery.lone_gpu) {
        discovery.lone_gpu->source = model::TopologySource::file;
        discovery.lone_gpu->provenance = path;
    }
    discovery.attempts.push_back(std::move(attempt));
    return discovery;
}

}  // namespace peergate::cli
