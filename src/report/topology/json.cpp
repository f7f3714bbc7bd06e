// SPDX-License-Identifier: Apache-2.0
#include "report/topology/json.hpp"

#include <fmt/format.h>

namespace peergate::report::topology {

namespace {

using Json = nlohmann::ordered_json;

template <typename T>
Json optional_or_null(const std::optional<T>& value) {
    return value ? Json(*value) : Json(nullptr);
}

Json string_or_null(const std::string& value) {
    return value.empty() ? Json(nullptr) : Json(value);
}

Json pairs_to_json(const std::vector<std::pair<int, int>>& pairs) {
    Json out = Json::array();
    for (const auto& [a, b] : pairs) {
        out.push_back(Json::array({a, b}));
    }
    return out;
}

Json attempts_to_json(const model::Discovery& discovery) {
    Json out = Json::array();
    for (const auto& attempt : discovery.attempts) {
        out.push_back(Json{{"tier", attempt.tier},
                           {"answered", attempt.topology.has_value()},
                           {"reason", string_or_null(attempt.reason)}});
    }
    return out;
}

Json nic_to_json(const policy::placement::NicAffinity& affinity, std::size_t n) {
    const auto& nic = affinity.nics[n];
    Json paths = Json::array();
    for (const auto& label : affinity.labels[n]) {
        paths.push_back(label.to_token());
    }
    return Json{
        {"nic", fmt::format("NIC{}", n)},
        {"pci_bus_id", affinity.from_text ? Json(nullptr) : Json(nic.path.device.to_sysfs())},
        {"numa_node", optional_or_null(nic.numa_node)},
        {"rdma_devices", nic.rdma_devices},
        {"interfaces", nic.interfaces},
        {"physical_function",
         nic.physical_function ? Json(nic.physical_function->to_sysfs()) : Json(nullptr)},
        {"paths", paths}};
}

Json nearest_to_json(const policy::placement::NicAffinity& affinity,
                     const model::Topology& topology) {
    Json out = Json::array();
    for (std::size_t p = 0; p < topology.size(); ++p) {
        out.push_back(nearest_nic_to_json(affinity, topology, p));
    }
    return out;
}

}  // namespace

Json nearest_nic_to_json(const policy::placement::NicAffinity& affinity,
                         const model::Topology& topology,
                         std::size_t position) {
    const auto nearest = policy::placement::nearest_nics(affinity, position);
    Json nics = Json::array();
    for (const auto n : nearest) {
        nics.push_back(fmt::format("NIC{}", n));
    }
    return Json{{"gpu", topology.gpus[position].index},
                {"nics", nics},
                {"path",
                 nearest.empty() ? Json(nullptr)
                                 : Json(affinity.labels[nearest.front()][position].to_token())}};
}

void add_nics(Json& doc,
              const std::optional<policy::placement::NicAffinity>& affinity,
              const model::Topology* topology) {
    if (!affinity || topology == nullptr) {
        doc["nics"] = nullptr;
        doc["nearest_nics"] = nullptr;
        return;
    }
    doc["nics"] = Json::array();
    for (std::size_t n = 0; n < affinity->nics.size(); ++n) {
        doc["nics"].push_back(nic_to_json(*affinity, n));
    }
    doc["nearest_nics"] =
        affinity->nics.empty() ? Json::array() : nearest_to_json(*affinity, *topology);
}

std::string unreadable_reason(const model::Discovery& discovery) {
    if (discovery.topology) {
        return "";
    }
    std::string reason = discovery.reason;
    for (const auto& attempt : discovery.attempts) {
        if (attempt.reason.empty() || reason.find(attempt.reason) != std::string::npos) {
            continue;
        }
        reason += (reason.empty() ? "" : "; ") + attempt.tier + ": " + attempt.reason;
    }
    return reason.empty() ? "no tier gave a matrix" : reason;
}

Json gpus_to_json(const model::Topology& topology) {
    Json gpus = Json::array();
    for (const auto& gpu : topology.gpus) {
        gpus.push_back(Json{{"index", gpu.index},
                            {"name", string_or_null(gpu.name)},
                            {"pci_bus_id", gpu.pci ? Json(gpu.pci->to_nvml()) : Json(nullptr)},
                            {"uuid", string_or_null(gpu.uuid)},
                            {"numa_node", optional_or_null(gpu.numa_node)},
                            {"cpu_affinity", string_or_null(gpu.cpu_affinity)}});
    }
    return gpus;
}

Json matrix_to_json(const model::Topology& topology) {
    Json matrix = Json::array();
    for (const auto& row : topology.matrix) {
        Json cells = Json::array();
        for (const auto& label : row) {
            cells.push_back(label.to_token());
        }
        matrix.push_back(std::move(cells));
    }
    return matrix;
}

Json topology_to_json(const model::Discovery& discovery) {
    const model::Topology* topology = discovery.described();
    Json doc;
    doc["schema"] = "peergate.topology/v1";
    doc["readable"] = topology != nullptr;
    doc["source"] =
        topology ? std::string(model::to_string(topology->source)) : std::string("none");
    doc["reason"] = topology ? Json(nullptr) : Json(unreadable_reason(discovery));
    doc["gpus"] = topology ? gpus_to_json(*topology) : Json::array();
    doc["matrix"] = topology ? matrix_to_json(*topology) : Json::array();
    Json islands = Json::array();
    if (topology) {
        for (const auto& island : topology->nvlink_islands()) {
            islands.push_back(island);
        }
    }
    doc["nvlink_islands"] = islands;
    doc["provenance"] = topology ? string_or_null(topology->provenance) : Json(nullptr);
    doc["tiers"] = attempts_to_json(discovery);
    if (discovery.crosscheck) {
        doc["crosscheck"] = Json{{"agree", discovery.crosscheck->agree()},
                                 {"nvml_only", pairs_to_json(discovery.crosscheck->nvml_only)},
                                 {"smi_only", pairs_to_json(discovery.crosscheck->smi_only)}};
        // Both answers, so a reader sees what each tier said, not only where they differ.
        for (const auto& attempt : discovery.attempts) {
            if (attempt.topology && (attempt.tier == "nvml" || attempt.tier == "nvidia-smi")) {
                doc["crosscheck"][attempt.tier == "nvml" ? "nvml" : "smi"] =
                    matrix_to_json(*attempt.topology);
            }
        }
    }
    return doc;
}

}  // namespace peergate::report::topology
