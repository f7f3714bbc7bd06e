// SPDX-License-Identifier: Apache-2.0
#include "snapshot/machine_traffic.hpp"

#include "snapshot/derived.hpp"
#include "snapshot/machine_json.hpp"
#include "util/json_read.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <string>

namespace peergate::snapshot {

namespace {

using machine_json::invalid;
using Json = nlohmann::json;

util::Expected<double> seconds_at(const Json& flow, const char* key, const std::string& where) {
    const auto value = util::json_finite(flow[key]);
    if (!value || *value < 0.0) {
        return invalid(fmt::format(
            "{}.{}: seconds, a number >= 0, are required, not {}", where, key, flow[key].dump()));
    }
    return *value;
}

util::Expected<int> gpu_at(const Json& flow,
                           const char* key,
                           const MachineFile& machine,
                           const std::string& where) {
    const auto index = flow.contains(key) ? util::json_integer<int>(flow[key]) : std::nullopt;
    if (!index || (*index != -1 && !gpu_position(machine, *index))) {
        return invalid(
            fmt::format("{}.{}: a GPU index of this machine, or -1 for the host, is "
                        "required, not {}",
                        where,
                        key,
                        flow.contains(key) ? flow[key].dump() : "nothing"));
    }
    return *index;
}

// A flow over NVLink needs an NVLink between its two GPUs (never the host).
util::Expected<void> check_route(const MachineTrafficFlow& flow,
                                 const MachineFile& machine,
                                 const std::string& where) {
    if (flow.from == flow.to) {
        return invalid(where + ": a flow from a GPU to itself moves nothing between GPUs");
    }
    if (flow.over == "pcie") {
        return {};
    }
    if (flow.over != "nvlink") {
        return invalid(where + ".over: \"nvlink\" or \"pcie\" is required, not \"" + flow.over +
                       "\"");
    }
    const auto p = gpu_position(machine, flow.from);
    const auto q = gpu_position(machine, flow.to);
    const bool linked = p && q && *p < machine.matrix.size() && *q < machine.matrix[*p].size() &&
                        machine.matrix[*p][*q].kind == model::LinkKind::nvlink;
    if (!linked) {
        return invalid(
            fmt::format("{}: GPUs {} and {} share no NVLink (matrix), so nothing "
                        "can move between them over it",
                        where,
                        flow.from,
                        flow.to));
    }
    return {};
}

util::Expected<MachineTrafficFlow> parse_flow(const Json& j,
                                              const MachineFile& machine,
                                              const std::string& where) {
    if (!j.is_object()) {
        return invalid(where + ": expected an object");
    }
    MachineTrafficFlow flow;
    PEERGATE_TRY(machine_json::take(gpu_at(j, "from", machine, where), flow.from));
    PEERGATE_TRY(machine_json::take(gpu_at(j, "to", machine, where), flow.to));
    flow.over = j.contains("over") && j["over"].is_string() ? j["over"].get<std::string>() : "";
    const auto gbps = j.contains("gbps") ? util::json_finite(j["gbps"]) : std::nullopt;
    if (!gbps || *gbps < 0.0) {
        return invalid(where + ".gbps: a rate in GB/s (10^9 bytes), a number >= 0, is required");
    }
    flow.gbps = *gbps;
    if (j.contains("start_s")) {
        PEERGATE_TRY(machine_json::take(seconds_at(j, "start_s", where), flow.start_s));
    }
    if (j.contains("stop_s")) {
        double stop = 0.0;
        PEERGATE_TRY(machine_json::take(seconds_at(j, "stop_s", where), stop));
        flow.stop_s = stop;
    }
    if (flow.stop_s && *flow.stop_s < flow.start_s) {
        return invalid(where + ": stop_s comes before start_s");
    }
    PEERGATE_TRY(check_route(flow, machine, where));
    return flow;
}

util::Expected<void> parse_options(const Json& j, MachineTraffic& traffic) {
    static const std::set<std::string> kModes{"per_link", "aggregate", "absent"};
    if (j.contains("nvlink_counters")) {
        const Json& mode = j["nvlink_counters"];
        if (!mode.is_string() || !kModes.contains(mode.get<std::string>())) {
            return invalid(
                "traffic.nvlink_counters: \"per_link\", \"aggregate\" or \"absent\" "
                "is required, not " +
                mode.dump());
        }
        traffic.nvlink_counters = mode.get<std::string>();
    }
    if (j.contains("pcie_counters")) {
        if (!j["pcie_counters"].is_boolean()) {
            return invalid("traffic.pcie_counters: true or false is required");
        }
        traffic.pcie_counters = j["pcie_counters"].get<bool>();
    }
    if (j.contains("start_kib")) {
        if (!j["start_kib"].is_number_unsigned()) {
            return invalid("traffic.start_kib: a KiB count from 0 to 2^64-1 is required");
        }
        traffic.start_kib = j["start_kib"].get<std::uint64_t>();
    }
    return {};
}

}  // namespace

util::Expected<std::optional<MachineTraffic>> parse_traffic(const Json& doc,
                                                            const MachineFile& machine) {
    if (!doc.contains("traffic")) {
        return std::optional<MachineTraffic>();
    }
    const Json& j = doc["traffic"];
    if (!j.is_object()) {
        return invalid("traffic: expected an object");
    }
    MachineTraffic traffic;
    PEERGATE_TRY(parse_options(j, traffic));
    const Json flows = j.value("flows", Json::array());
    if (!flows.is_array() || flows.size() > kMostTrafficFlows) {
        return invalid(fmt::format("traffic.flows: an array of at most {} flows is required",
                                   kMostTrafficFlows));
    }
    for (std::size_t k = 0; k < flows.size(); ++k) {
        auto flow = parse_flow(flows[k], machine, fmt::format("traffic.flows[{}]", k));
        if (!flow) {
            return util::unexpected(flow.error());
        }
        traffic.flows.push_back(*flow);
    }
    return std::optional<MachineTraffic>(std::move(traffic));
}

nlohmann::ordered_json traffic_to_json(const MachineTraffic& traffic) {
    auto flows = nlohmann::ordered_json::array();
    for (const auto& flow : traffic.flows) {
        nlohmann::ordered_json j{{"from", flow.from},
                                 {"to", flow.to},
                                 {"over", flow.over},
                                 {"gbps", flow.gbps},
                                 {"start_s", flow.start_s}};
        if (flow.stop_s) {
            j["stop_s"] = *flow.stop_s;
        }
        flows.push_back(std::move(j));
    }
    return {{"nvlink_counters", traffic.nvlink_counters},
            {"pcie_counters", traffic.pcie_counters},
            {"start_kib", traffic.start_kib},
            {"flows", std::move(flows)}};
}

}  // namespace peergate::snapshot
