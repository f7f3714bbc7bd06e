// SPDX-License-Identifier: Apache-2.0
#include "snapshot/machine_fabric.hpp"

#include "snapshot/machine_json.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <limits>

namespace peergate::snapshot {

namespace {

using machine_json::invalid;
using Json = nlohmann::json;

// A field that must fit an unsigned 32-bit word (cliqueId, healthMask).
util::Expected<std::optional<std::uint32_t>> word_at(const Json& fabric,
                                                     const char* key,
                                                     const std::string& where) {
    if (!fabric.contains(key)) {
        return std::optional<std::uint32_t>();
    }
    const Json& value = fabric[key];
    if (!value.is_number_unsigned() ||
        value.get<std::uint64_t>() > std::numeric_limits<std::uint32_t>::max()) {
        return invalid(fmt::format(
            "{}.{}: a number from 0 to 4294967295 is required, not {}", where, key, value.dump()));
    }
    return std::optional<std::uint32_t>(value.get<std::uint32_t>());
}

util::Expected<model::FabricState> state_at(const Json& fabric, const std::string& where) {
    const Json state = fabric.value("state", Json());
    const auto parsed =
        state.is_string() ? model::parse_fabric_state(state.get<std::string>()) : std::nullopt;
    if (!parsed) {
        return invalid(where +
                       ".state: one of \"not_supported\", \"not_started\", \"in_progress\", "
                       "\"completed\", \"unknown\" is required, not " +
                       state.dump());
    }
    return *parsed;
}

}  // namespace

util::Expected<std::optional<model::GpuFabric>> parse_fabric(const Json& gpu,
                                                             const std::string& where) {
    if (!gpu.contains("fabric")) {
        return std::optional<model::GpuFabric>();
    }
    const Json& fabric = gpu["fabric"];
    const std::string at = where + ".fabric";
    if (!fabric.is_object()) {
        return invalid(at + ": expected an object");
    }
    model::GpuFabric out;
    PEERGATE_TRY(machine_json::take(state_at(fabric, at), out.state));
    if (fabric.contains("status") && !fabric["status"].is_number_integer()) {
        return invalid(at + ".status: an nvmlReturn_t number is required (0 is success)");
    }
    out.status = machine_json::get_or(fabric, "status", 0);
    if (fabric.contains("cluster_uuid") &&
        (!fabric["cluster_uuid"].is_string() ||
         !model::parse_cluster_uuid(fabric["cluster_uuid"].get<std::string>()))) {
        return invalid(at +
                       ".cluster_uuid: a UUID such as \"9c6f5af3-53bf-49b5-a436-b66766c413c3\" "
                       "is required, not " +
                       fabric["cluster_uuid"].dump());
    }
    out.cluster_uuid = machine_json::get_or<std::string>(fabric, "cluster_uuid", "");
    auto clique = word_at(fabric, "clique_id", at);
    auto health = word_at(fabric, "health_mask", at);
    if (!clique || !health) {
        return util::unexpected(clique ? health.error() : clique.error());
    }
    out.clique_id = clique->value_or(0);
    out.health_mask = *health;
    return std::optional<model::GpuFabric>(std::move(out));
}

nlohmann::ordered_json fabric_to_json(const model::GpuFabric& fabric) {
    nlohmann::ordered_json j;
    j["state"] = std::string(model::to_string(fabric.state));
    j["status"] = fabric.status;
    j["clique_id"] = fabric.clique_id;
    if (!fabric.cluster_uuid.empty()) {
        j["cluster_uuid"] = fabric.cluster_uuid;
    }
    if (fabric.health_mask) {
        j["health_mask"] = *fabric.health_mask;
    }
    return j;
}

}  // namespace peergate::snapshot
