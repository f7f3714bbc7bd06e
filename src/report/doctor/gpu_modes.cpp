// SPDX-License-Identifier: Apache-2.0
#include "report/doctor/gpu_modes.hpp"

#include <fmt/format.h>

namespace peergate::report::doctor {

using Json = nlohmann::ordered_json;

Json nvswitch_fabric_to_json(const policy::doctor::DoctorInput& input) {
    Json out = Json::array();
    for (const auto& [gpu, fabric] : input.fabric) {
        if (!policy::doctor::is_examined(input, gpu)) {
            continue;
        }
        out.push_back(
            Json{{"gpu", gpu},
                 {"state", std::string(model::to_string(fabric.state))},
                 {"status", fabric.status},
                 {"clique_id", fabric.clique_id},
                 {"cluster_uuid",
                  fabric.cluster_uuid.empty() ? Json(nullptr) : Json(fabric.cluster_uuid)},
                 {"health_mask", fabric.health_mask ? Json(*fabric.health_mask) : Json(nullptr)},
                 {"ready", fabric.ready()},
                 {"bandwidth_degraded", fabric.bandwidth_degraded()},
                 {"route_unhealthy", fabric.route_unhealthy()}});
    }
    return out;
}

std::string fabric_text(const model::GpuFabric& fabric) {
    std::string text = fmt::format("fabric {}", model::display_name(fabric.state));
    if (fabric.state == model::FabricState::completed) {
        if (fabric.status != 0) {
            text += fmt::format(", status {}", fabric.status);
        } else if (fabric.clique_id != 0) {
            text += fmt::format(" (clique {})", fabric.clique_id);
        }
    }
    if (fabric.bandwidth_degraded()) {
        text += ", bandwidth degraded";
    }
    if (fabric.route_unhealthy()) {
        text += ", routes unhealthy";
    }
    return text;
}

Json mig_to_json(const policy::doctor::DoctorInput& input) {
    Json out = Json::array();
    for (const auto& [gpu, mig] : input.mig) {
        if (policy::doctor::is_examined(input, gpu)) {
            out.push_back(Json{{"gpu", gpu}, {"enabled", mig.enabled}, {"pending", mig.pending}});
        }
    }
    return out;
}

std::string mig_text(const model::MigMode& mig) {
    if (mig.enabled == mig.pending) {
        return mig.enabled ? "MIG on" : "";
    }
    return mig.enabled ? "MIG on, off after a reset" : "MIG off, on after a reset";
}

}  // namespace peergate::report::doctor
