// SPDX-License-Identifier: Apache-2.0
#include "snapshot/machine_pcie_link.hpp"

#include "snapshot/machine_json.hpp"

namespace peergate::snapshot {

namespace {

using machine_json::invalid;
using Json = nlohmann::json;

// PCIe links are x1 to x32 wide.
util::Expected<std::optional<int>> width_at(const Json& link,
                                            const char* key,
                                            const std::string& where) {
    if (!link.contains(key)) {
        return std::optional<int>();
    }
    const Json& value = link[key];
    if (!value.is_number_integer() || value.get<long long>() < 1 || value.get<long long>() > 32) {
        return invalid(where + "." + key + ": a lane count from 1 to 32 is required, not " +
                       value.dump());
    }
    return std::optional<int>(value.get<int>());
}

util::Expected<std::string> speed_at(const Json& link, const char* key, const std::string& where) {
    if (!link.contains(key)) {
        return std::string();
    }
    if (!link[key].is_string() || link[key].get<std::string>().find("GT/s") == std::string::npos) {
        return invalid(where + "." + key + ": sysfs's text such as \"16.0 GT/s PCIe\" is required");
    }
    return link[key].get<std::string>();
}

}  // namespace

util::Expected<std::optional<MachinePcieLink>> parse_pcie_link(const Json& owner,
                                                               const std::string& where) {
    if (!owner.contains("pcie_link")) {
        return std::optional<MachinePcieLink>();
    }
    const Json& link = owner["pcie_link"];
    const std::string at = where + ".pcie_link";
    if (!link.is_object()) {
        return invalid(at + ": expected an object");
    }
    auto max_speed = speed_at(link, "max_speed", at);
    auto current_speed = speed_at(link, "current_speed", at);
    if (!max_speed || !current_speed) {
        return util::unexpected(max_speed ? current_speed.error() : max_speed.error());
    }
    auto max_width = width_at(link, "max_width", at);
    auto current_width = width_at(link, "current_width", at);
    if (!max_width || !current_width) {
        return util::unexpected(max_width ? current_width.error() : max_width.error());
    }
    return std::optional<MachinePcieLink>(MachinePcieLink{.max_speed = *max_speed,
                                                          .max_width = *max_width,
                                                          .current_speed = *current_speed,
                                                          .current_width = *current_width});
}

nlohmann::ordered_json pcie_link_to_json(const MachinePcieLink& link) {
    nlohmann::ordered_json j = nlohmann::ordered_json::object();
    if (!link.max_speed.empty()) {
        j["max_speed"] = link.max_speed;
    }
    if (link.max_width) {
        j["max_width"] = *link.max_width;
    }
    if (!link.current_speed.empty()) {
        j["current_speed"] = link.current_speed;
    }
    if (link.current_width) {
        j["current_width"] = *link.current_width;
    }
    return j;
}

}  // namespace peergate::snapshot
