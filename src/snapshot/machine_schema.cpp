// SPDX-License-Identifier: Apache-2.0
#include "snapshot/machine_schema.hpp"

#include "util/json_read.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace peergate::snapshot {

namespace {

using Json = nlohmann::json;

enum class Kind {
    string,
    integer,
    unsigned_integer,
    number,
    boolean,
    object,
    array,
    optional_integer
};

struct Field {
    const char* key;
    Kind kind;
};

// A matrix-shaped field (rows of cells) of strings, integers or numbers.
struct TableField {
    const char* key;
    Kind cell;
};

const std::vector<Field> kTop{{"name", Kind::string},
                              {"description", Kind::string},
                              {"driver_version", Kind::string},
                              {"cuda_driver_version", Kind::integer},
                              {"nvswitch", Kind::boolean},
                              {"nvswitch_pci", Kind::array},
                              {"gpus", Kind::array},
                              {"matrix", Kind::array},
                              {"nvml_p2p", Kind::object},
                              {"host", Kind::object},
                              {"bandwidth", Kind::object},
                              {"faults", Kind::array},
                              {"nics", Kind::array},
                              {"recorded", Kind::object},
                              {"traffic", Kind::object}};
const std::vector<Field> kGpu{{"index", Kind::integer},
                              {"name", Kind::string},
                              {"pci_bus_id", Kind::string},
                              {"uuid", Kind::string},
                              {"numa_node", Kind::optional_integer},
                              {"cpu_affinity", Kind::string},
                              {"nvlink_slots", Kind::integer},
                              {"memory_bytes", Kind::unsigned_integer},
                              {"pci_device_id", Kind::string},
                              {"cc_major", Kind::integer},
                              {"cc_minor", Kind::integer},
                              {"nvlinks", Kind::array},
                              {"upstream_ports", Kind::array},
                              {"nvlink_errors", Kind::array},
                              {"nvlink_counters", Kind::string},
                              {"pcie_link", Kind::object},
                              {"aer", Kind::object},
                              {"cuda_dma_buf", Kind::boolean},
                              {"fabric", Kind::object},
                              {"mig", Kind::object}};
const std::vector<Field> kPort{{"pci", Kind::string},
                               {"acs_control", Kind::string},
                               {"vendor", Kind::string},
                               {"device", Kind::string},
                               {"subsystem_vendor", Kind::string},
                               {"subsystem_device", Kind::string},
                               {"pcie_link", Kind::object},
                               {"aer", Kind::object}};
const std::vector<Field> kNvlink{{"link", Kind::integer},
                                 {"active", Kind::boolean},
                                 {"remote_type", Kind::string},
                                 {"remote_pci", Kind::string}};
const std::vector<Field> kHost{{"iommu", Kind::string},
                               {"iommu_group_type", Kind::string},
                               {"hypervisor", Kind::boolean},
                               {"kernel_cmdline", Kind::string},
                               {"boot_id", Kind::string},
                               {"peer_memory_module", Kind::string},
                               {"kernel_module", Kind::string},
                               {"kernel_release", Kind::string},
                               {"kernel_module_version", Kind::string},
                               {"kernel_log", Kind::string},
                               {"cpu_arch", Kind::string},
                               {"cpu_vendor", Kind::string},
                               {"cpu_family", Kind::optional_integer},
                               {"cpu_model", Kind::optional_integer},
                               {"cpus", Kind::array}};
const std::vector<Field> kBandwidth{{"nvlink_gbps_per_link", Kind::number},
                                    {"pcie_gbps", Kind::number},
                                    {"host_gbps", Kind::number},
                                    {"device_gbps", Kind::number}};
const std::vector<Field> kNic{{"pci_bus_id", Kind::string},
                              {"class", Kind::string},
                              {"vendor", Kind::string},
                              {"device", Kind::string},
                              {"numa_node", Kind::optional_integer},
                              {"upstream_ports", Kind::array},
                              {"pcie_link", Kind::object},
                              {"aer", Kind::object}};
const std::vector<Field> kFault{{"layer", Kind::string},
                                {"call", Kind::string},
                                {"effect", Kind::string},
                                {"code", Kind::integer},
                                {"src", Kind::integer},
                                {"dst", Kind::integer},
                                {"min_bytes", Kind::unsigned_integer},
                                {"min_inflight", Kind::integer},
                                {"after_copies", Kind::integer},
                                {"fraction", Kind::number}};
const std::vector<Field> kRecorded{{"topo_m", Kind::string}, {"query_gpu", Kind::string}};

bool has_kind(const Json& j, Kind kind) {
    switch (kind) {
        case Kind::string:
            return j.is_string();
        case Kind::integer:
            return util::json_integer<int>(j).has_value();
        case Kind::unsigned_integer:
            return j.is_number_unsigned();
        case Kind::number:
            return j.is_number();
        case Kind::boolean:
            return j.is_boolean();
        case Kind::object:
            return j.is_object();
        case Kind::array:
            return j.is_array();
        case Kind::optional_integer:
            return j.is_null() || util::json_integer<int>(j).has_value();
    }
    return false;
}

const char* kind_name(Kind kind) {
    switch (kind) {
        case Kind::string:
            return "a string";
        case Kind::integer:
            return "a 32-bit integer";
        case Kind::unsigned_integer:
            return "a non-negative integer";
        case Kind::number:
            return "a number";
        case Kind::boolean:
            return "true or false";
        case Kind::object:
            return "an object";
        case Kind::array:
            return "an array";
        case Kind::optional_integer:
            return "a 32-bit integer or null";
    }
    return "?";
}

util::Unexpected wrong(const std::string& where, Kind kind, const Json& j) {
    return util::unexpected(util::ErrorCode::invalid_input,
                            fmt::format("machine file: {}: expected {}, got {}",
                                        where,
                                        kind_name(kind),
                                        j.is_number() ? j.dump() : std::string(j.type_name())));
}

util::Expected<void> check_object(const Json& j,
                                  const std::vector<Field>& fields,
                                  const std::string& where) {
    if (!j.is_object()) {
        return wrong(where.empty() ? "the document" : where, Kind::object, j);
    }
    for (const auto& field : fields) {
        const std::string path = where.empty() ? field.key : where + "." + field.key;
        if (j.contains(field.key) && !has_kind(j[field.key], field.kind)) {
            return wrong(path, field.kind, j[field.key]);
        }
    }
    return {};
}

util::Expected<void> check_each(const Json& j,
                                const char* key,
                                const std::vector<Field>& fields,
                                const std::string& where) {
    if (!j.contains(key)) {
        return {};
    }
    for (std::size_t k = 0; k < j[key].size(); ++k) {
        PEERGATE_TRY(check_object(j[key][k], fields, fmt::format("{}{}[{}]", where, key, k)));
    }
    return {};
}

util::Expected<void> check_table(const Json& j, const TableField& table, const std::string& where) {
    if (!j.contains(table.key)) {
        return {};
    }
    const std::string path = where + table.key;
    if (!j[table.key].is_array()) {
        return wrong(path, Kind::array, j[table.key]);
    }
    for (std::size_t r = 0; r < j[table.key].size(); ++r) {
        const Json& row = j[table.key][r];
        if (!row.is_array()) {
            return wrong(fmt::format("{}[{}]", path, r), Kind::array, row);
        }
        for (std::size_t c = 0; c < row.size(); ++c) {
            if (!has_kind(row[c], table.cell)) {
                return wrong(fmt::format("{}[{}][{}]", path, r, c), table.cell, row[c]);
            }
        }
    }
    return {};
}

// host.cpus: rows of three non-negative integers, {cpu, physical_package_id, core_id}.
util::Expected<void> check_cpus(const Json& host) {
    PEERGATE_TRY(check_table(host, {"cpus", Kind::integer}, "host."));
    for (std::size_t r = 0; host.contains("cpus") && r < host["cpus"].size(); ++r) {
        const Json& row = host["cpus"][r];
        if (row.size() != 3 || std::any_of(row.begin(), row.end(), [](const Json& v) {
                return v.get<long long>() < 0;
            })) {
            return util::unexpected(
                util::ErrorCode::invalid_input,
                fmt::format("machine file: host.cpus[{}] must be [cpu, package, core_id], "
                            "three numbers >= 0, not {}",
                            r,
                            row.dump()));
        }
    }
    return {};
}

util::Expected<void> check_sections(const Json& doc) {
    PEERGATE_TRY(check_each(doc, "gpus", kGpu, ""));
    for (std::size_t k = 0; doc.contains("gpus") && k < doc["gpus"].size(); ++k) {
        PEERGATE_TRY(check_each(doc["gpus"][k], "nvlinks", kNvlink, fmt::format("gpus[{}].", k)));
        PEERGATE_TRY(
            check_each(doc["gpus"][k], "upstream_ports", kPort, fmt::format("gpus[{}].", k)));
    }
    PEERGATE_TRY(check_each(doc, "faults", kFault, ""));
    PEERGATE_TRY(check_each(doc, "nics", kNic, ""));
    for (std::size_t k = 0; doc.contains("nics") && k < doc["nics"].size(); ++k) {
        PEERGATE_TRY(
            check_each(doc["nics"][k], "upstream_ports", kPort, fmt::format("nics[{}].", k)));
    }
    PEERGATE_TRY(check_table(doc, {"matrix", Kind::string}, ""));
    PEERGATE_TRY(check_table(doc, {"cuda_can_access_peer", Kind::integer}, ""));
    if (doc.contains("host")) {
        PEERGATE_TRY(check_object(doc["host"], kHost, "host"));
        PEERGATE_TRY(check_cpus(doc["host"]));
    }
    if (doc.contains("bandwidth")) {
        PEERGATE_TRY(check_object(doc["bandwidth"], kBandwidth, "bandwidth"));
        PEERGATE_TRY(check_table(doc["bandwidth"], {"p2p_gbps", Kind::number}, "bandwidth."));
    }
    if (doc.contains("recorded")) {
        PEERGATE_TRY(check_object(doc["recorded"], kRecorded, "recorded"));
    }
    for (const char* caps : {"nvlink", "read", "write", "atomics", "prop"}) {
        if (doc.contains("nvml_p2p")) {
            PEERGATE_TRY(check_table(doc["nvml_p2p"], {caps, Kind::string}, "nvml_p2p."));
        }
    }
    return {};
}

}  // namespace

util::Expected<void> check_field_types(const Json& doc) {
    PEERGATE_TRY(check_object(doc, kTop, ""));
    return check_sections(doc);
}

}  // namespace peergate::snapshot
