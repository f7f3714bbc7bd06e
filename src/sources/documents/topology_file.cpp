// SPDX-License-Identifier: Apache-2.0
#include "sources/documents/topology_file.hpp"

#include "snapshot/derived.hpp"
#include "snapshot/machine_file.hpp"
#include "sources/smi/topo_m_parser.hpp"
#include "util/atomic_file.hpp"
#include "util/bounded_read.hpp"
#include "util/json_read.hpp"
#include "util/strings.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <vector>

namespace peergate::sources::documents {

namespace {

util::Unexpected invalid(const std::string& message) {
    return util::unexpected(util::ErrorCode::invalid_input, "topology JSON: " + message);
}

std::string string_field(const nlohmann::json& entry, const char* key) {
    return entry.contains(key) && entry[key].is_string() ? entry[key].get<std::string>() : "";
}

util::Expected<model::Gpu> gpu_from_json(const nlohmann::json& entry) {
    const auto index = entry.is_object() && entry.contains("index")
                           ? util::json_integer<int>(entry["index"])
                           : std::nullopt;
    if (!index || *index < 0) {
        return invalid("every gpus entry needs an \"index\" that is an integer from 0");
    }
    model::Gpu gpu;
    gpu.index = *index;
    if (auto pci = model::PciAddress::parse(string_field(entry, "pci_bus_id"))) {
        gpu.pci = *pci;
    }
    gpu.name = string_field(entry, "name");
    gpu.uuid = string_field(entry, "uuid");
    gpu.cpu_affinity = string_field(entry, "cpu_affinity");
    if (entry.contains("numa_node")) {
        gpu.numa_node = util::json_integer<int>(entry["numa_node"]);
    }
    return gpu;
}

util::Expected<std::vector<model::LinkLabel>> row_from_json(const nlohmann::json& row) {
    if (!row.is_array()) {
        return invalid("matrix rows must be arrays");
    }
    std::vector<model::LinkLabel> labels;
    for (const auto& cell : row) {
        auto label =
            cell.is_string() ? model::LinkLabel::parse(cell.get<std::string>()) : std::nullopt;
        if (!label) {
            return invalid("matrix cell is not a topo -m token: " + cell.dump());
        }
        labels.push_back(*label);
    }
    return labels;
}

bool looks_like_json(std::string_view text) {
    const auto body = util::trim(text);
    return !body.empty() && body.front() == '{';
}

// The "schema" of a JSON text, "" when there is none to read.
std::string schema_of(std::string_view text) {
    const auto doc = nlohmann::json::parse(text, nullptr, false);
    return doc.is_object() ? string_field(doc, "schema") : "";
}

util::Expected<model::Topology> topology_of_machine_file(std::string_view text) {
    auto machine = snapshot::parse_machine(std::string(text));
    if (!machine) {
        return util::unexpected(machine.error());
    }
    return snapshot::machine_topology(*machine);
}

// Any of the three forms; a machine file's topology may hold fewer than 2 GPUs.
util::Expected<model::Topology> parse_any(std::string_view text) {
    if (!looks_like_json(text)) {
        return sources::smi::parse_topo_m(std::string(text));
    }
    if (schema_of(text) == "peergate.topology/v1") {
        return parse_topology_document(text);
    }
    return topology_of_machine_file(text);
}

}  // namespace

util::Expected<model::Topology> parse_topology_document(std::string_view text) {
    const auto doc = nlohmann::json::parse(text, nullptr, false);
    if (doc.is_discarded() || !doc.is_object()) {
        return invalid("not a JSON object");
    }
    if (!doc.contains("schema") || doc["schema"] != "peergate.topology/v1") {
        return invalid("schema is not peergate.topology/v1");
    }
    if (!doc.contains("gpus") || !doc["gpus"].is_array() || !doc.contains("matrix") ||
        !doc["matrix"].is_array()) {
        return invalid("\"gpus\" and \"matrix\" arrays are required");
    }
    model::Topology topology;
    topology.source = model::TopologySource::file;
    for (const auto& entry : doc["gpus"]) {
        auto gpu = gpu_from_json(entry);
        PEERGATE_TRY(gpu);
        topology.gpus.push_back(std::move(*gpu));
    }
    for (const auto& row : doc["matrix"]) {
        auto labels = row_from_json(row);
        PEERGATE_TRY(labels);
        topology.matrix.push_back(std::move(*labels));
    }
    PEERGATE_TRY(model::check_matrix(topology));
    return topology;
}

namespace {

// Reads and parses `path`; `form` receives what the text was ("machine file" for one).
util::Expected<model::Topology> read_any(const std::string& path, std::string& form) {
    // topo -m of 64 GPUs and a machine file are well under 1 MB: /dev/zero is refused, not read.
    constexpr std::size_t kLargestTopologyFile = std::size_t{16} << 20U;
    auto text = util::read_regular_file(path, kLargestTopologyFile);
    if (!text) {
        return util::unexpected(std::move(text).error());
    }
    form = !looks_like_json(*text)                      ? "topo -m text"
           : schema_of(*text) == "peergate.topology/v1" ? "topology document"
                                                        : "machine file";
    auto topology = parse_any(*text);
    if (!topology) {
        return util::unexpected(topology.error().code, path + ": " + topology.error().message);
    }
    topology->source = model::TopologySource::file;
    topology->provenance = path;
    return topology;
}

}  // namespace

util::Expected<model::Topology> read_topology(const std::string& path) {
    std::string form;
    return read_any(path, form);
}

model::Discovery read_topology_file(const std::string& path) {
    model::Discovery discovery;
    model::TierAttempt attempt{.tier = "file"};
    std::string form;
    auto topology = read_any(path, form);
    if (!topology) {
        attempt.reason = topology.error().message;
    } else if (topology->size() < 2) {
        // The same rule as every tier: one GPU has no pair, so no matrix to trust.
        if (topology->size() == 1) {
            attempt.lone_gpu = std::move(*topology);
        }
        attempt.reason = path + ": " + form + ": fewer than 2 GPUs, no interconnect matrix";
    } else {
        attempt.topology = std::move(*topology);
    }
    discovery.topology = attempt.topology;
    discovery.reason = attempt.reason;
    discovery.lone_gpu = attempt.lone_gpu;
    discovery.attempts.push_back(std::move(attempt));
    return discovery;
}

}  // namespace peergate::sources::documents
