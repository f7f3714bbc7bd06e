// SPDX-License-Identifier: Apache-2.0
#include "report/fleet/node_lines.hpp"

#include "util/base64.hpp"
#include "util/json_read.hpp"
#include "util/strings.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cctype>
#include <map>
#include <stdexcept>
#include <utility>

namespace peergate::report::fleet {

namespace {

constexpr std::string_view kSchema = "peergate.fleet_node/v1";
constexpr std::string_view kPartSchema = "peergate.fleet_node_part/v1";

// The parts of one node's record seen so far, by part number.
struct Parts {
    std::string where;  // the first part's line
    std::size_t count = 0;
    std::map<std::size_t, std::string> data;
};

using PartsByRecord = std::map<std::pair<std::string, std::string>, Parts>;  // (node, id)

nlohmann::ordered_json gpus_json(const exports::ExportFacts& facts) {
    auto out = nlohmann::ordered_json::array();
    for (const auto& gpu : report::exports::examined_gpus(facts)) {
        out.push_back({{"index", gpu.index},
                       {"name", gpu.name},
                       {"pci_bus_id", gpu.pci ? gpu.pci->to_nvml() : ""},
                       {"uuid", gpu.uuid}});
    }
    return out;
}

// The host's NICs with their RDMA devices; null where sysfs showed no GPU's PCIe path (no
// sysfs to read, so no NIC list to compare).
nlohmann::ordered_json nics_json(const exports::ExportFacts& facts) {
    if (facts.doctor.ports.empty()) {
        return nullptr;
    }
    auto out = nlohmann::ordered_json::array();
    for (const auto& nic : facts.doctor.nics) {
        if (nic.physical_function) {
            continue;  // how many virtual functions a NIC has is a setting, not hardware
        }
        out.push_back(
            {{"pci_bus_id", nic.path.device.to_sysfs()}, {"rdma_devices", nic.rdma_devices}});
    }
    return out;
}

nlohmann::ordered_json matrix_json(const exports::ExportFacts& facts) {
    auto out = nlohmann::ordered_json::array();
    const model::Topology* topology = facts.doctor.discovery.described();
    if (topology == nullptr) {
        return out;
    }
    const auto gpus = report::exports::examined_gpus(facts);
    for (const auto& a : gpus) {
        auto row = nlohmann::ordered_json::array();
        for (const auto& b : gpus) {
            const auto label = topology->label(a.index, b.index);
            row.push_back(label ? label->to_token() : "unknown");
        }
        out.push_back(row);
    }
    return out;
}

// The pairs a --bandwidth result measured, with their topology token; [] where none was given.
nlohmann::ordered_json bandwidth_json(const exports::ExportFacts& facts) {
    auto out = nlohmann::ordered_json::array();
    for (const auto& pair : facts.doctor.pairs) {
        if (pair.p2p_gbps) {
            out.push_back({{"src", pair.src},
                           {"dst", pair.dst},
                           {"link", pair.label},
                           {"p2p_gbps", *pair.p2p_gbps},
                           {"staged_gbps",
                            pair.staged_gbps ? nlohmann::ordered_json(*pair.staged_gbps)
                                             : nlohmann::ordered_json(nullptr)}});
        }
    }
    return out;
}

nlohmann::ordered_json findings_json(const exports::ExportFacts& facts) {
    auto out = nlohmann::ordered_json::array();
    for (const auto& finding : facts.report.findings) {
        out.push_back({{"code", finding.id()},
                       {"severity", std::string(model::to_string(finding.severity))},
                       {"message", finding.message}});
    }
    return out;
}

// The line without srun --label's "<task>: " prefix.
std::string_view unlabelled(std::string_view line) {
    std::size_t digits = 0;
    while (digits < line.size() && std::isdigit(static_cast<unsigned char>(line[digits])) != 0) {
        ++digits;
    }
    if (digits > 0 && line.substr(digits).starts_with(": ")) {
        line.remove_prefix(digits + 2);
    }
    return util::trim(line);
}

template <typename T>
T field(const nlohmann::json& doc, const char* key, T fallback) {
    const auto it = doc.find(key);
    return it != doc.end() && !it->is_null() ? it->get<T>() : fallback;
}

// Throws nlohmann's errors on a record of the wrong shape: the caller reports them.
model::FleetNode node_from(const nlohmann::json& doc) {
    model::FleetNode node;
    node.node = doc.at("node").get<std::string>();
    node.hostname = field<std::string>(doc, "hostname", "");
    node.version = field<std::string>(doc, "version", "");
    node.verdict = doc.at("verdict").get<std::string>();
    node.p2p = doc.at("p2p").get<bool>();
    node.rule = field<std::string>(doc, "rule", "");
    node.state = field<std::string>(doc, "state", "");
    node.iommu = field<std::string>(doc, "iommu", "unknown");
    node.driver = field<std::string>(doc, "driver", "");
    node.kernel = field<std::string>(doc, "kernel", "");
    if (const auto nics = doc.find("nics"); nics != doc.end() && !nics->is_null()) {
        node.nics.emplace();
        for (const auto& nic : *nics) {
            const auto rdma = nic.at("rdma_devices").get<std::vector<std::string>>();
            node.nics->push_back(nic.at("pci_bus_id").get<std::string>() + " " +
                                 (rdma.empty() ? "(no RDMA device)" : util::join(rdma, ",")));
        }
    }
    for (const auto& gpu : doc.at("gpus")) {
        node.gpu_names.push_back(gpu.at("name").get<std::string>());
    }
    node.matrix = doc.at("matrix").get<std::vector<std::vector<std::string>>>();
    for (const auto& finding : doc.at("findings")) {
        node.findings.push_back({finding.at("code").get<std::string>(),
                                 finding.at("severity").get<std::string>(),
                                 field<std::string>(finding, "message", "")});
    }
    if (const auto rates = doc.find("bandwidth"); rates != doc.end() && !rates->is_null()) {
        for (const auto& rate : *rates) {
            const auto staged = rate.find("staged_gbps");
            node.bandwidth.push_back(
                model::FleetPairRate{.src = rate.at("src").get<int>(),
                                     .dst = rate.at("dst").get<int>(),
                                     .link = rate.at("link").get<std::string>(),
                                     .p2p_gbps = rate.at("p2p_gbps").get<double>(),
                                     .staged_gbps = staged != rate.end() && !staged->is_null()
                                                        ? std::optional(staged->get<double>())
                                                        : std::nullopt});
        }
    }
    return node;
}

void read_record(const nlohmann::json& doc, const std::string& where, FleetLines& out) {
    out.nodes.push_back(node_from(doc));
    out.nodes.back().source = where;
}

void read_part(const nlohmann::json& doc, const std::string& where, PartsByRecord& parts) {
    auto& record = parts[{doc.at("node").get<std::string>(), doc.at("id").get<std::string>()}];
    const auto part = util::json_integer_at<std::size_t>(doc, "part");
    record.count = util::json_integer_at<std::size_t>(doc, "parts");
    record.where = record.where.empty() ? where : record.where;
    record.data[part] = doc.at("data").get<std::string>();
}

// One line that starts with '{': a record, a part of one, or unreadable.
void read_line(std::string_view line,
               const std::string& where,
               FleetLines& out,
               PartsByRecord& parts) {
    const auto doc = nlohmann::json::parse(line, nullptr, false);
    try {
        const auto schema = doc.is_object() ? field<std::string>(doc, "schema", "") : "";
        if (schema == kSchema) {
            read_record(doc, where, out);
        } else if (schema == kPartSchema) {
            read_part(doc, where, parts);
        } else {
            out.unreadable.push_back(where + ": not a " + std::string(kSchema) + " record");
        }
    } catch (const nlohmann::json::exception& e) {
        out.unreadable.push_back(where + ": " + e.what());
    }
}

// A record from its parts, when every one of them arrived and decodes.
void assemble(const std::string& node, const Parts& record, FleetLines& out) {
    std::string text;
    for (std::size_t part = 1; part <= record.count; ++part) {
        const auto it = record.data.find(part);
        const auto bytes = it == record.data.end() ? std::nullopt : util::base64_decode(it->second);
        if (!bytes || record.data.size() != record.count) {
            out.unreadable.push_back(
                fmt::format("{}: {} of the {} parts of {}'s record arrived whole",
                            record.where,
                            record.data.size(),
                            record.count,
                            node));
            return;
        }
        text += *bytes;
    }
    const auto doc = nlohmann::json::parse(text, nullptr, false);
    try {
        if (!doc.is_object() || field<std::string>(doc, "schema", "") != kSchema) {
            throw std::invalid_argument("the parts do not make a record");
        }
        read_record(doc, record.where, out);
    } catch (const std::exception& e) {
        out.unreadable.push_back(fmt::format("{}: {}'s record: {}", record.where, node, e.what()));
    }
}

// The running module's version: what the node's GPUs run under, whatever is installed.
nlohmann::ordered_json driver_json(const model::HostFacts& host) {
    return host.nvidia_module ? nlohmann::ordered_json(host.nvidia_module->version)
                              : nlohmann::ordered_json(nullptr);
}

}  // namespace

std::string fleet_node_line(const exports::ExportFacts& facts, const std::string& hostname) {
    const nlohmann::ordered_json doc = {
        {"schema", kSchema},
        {"node", facts.run.node_name},
        {"hostname", hostname},
        {"version", facts.run.version},
        {"verdict", std::string(to_string(facts.report.verdict))},
        {"p2p", facts.gate.p2p},
        {"rule", facts.gate.rule},
        {"state", std::string(to_string(exports::node_verdict(facts).state))},
        {"iommu", std::string(model::to_string(facts.doctor.host.iommu))},
        {"driver", driver_json(facts.doctor.host)},
        {"kernel",
         facts.doctor.host.kernel_release.empty()
             ? nlohmann::ordered_json(nullptr)
             : nlohmann::ordered_json(facts.doctor.host.kernel_release)},
        {"gpus", gpus_json(facts)},
        {"nics", nics_json(facts)},
        {"matrix", matrix_json(facts)},
        {"findings", findings_json(facts)},
        {"bandwidth", bandwidth_json(facts)}};
    return doc.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

std::vector<std::string> fleet_node_lines(const exports::ExportFacts& facts,
                                          const std::string& hostname,
                                          const std::string& id) {
    const std::string record = fleet_node_line(facts, hostname);
    if (record.size() <= kFleetMaxLine) {
        return {record};
    }
    // 600 bytes become 800 of base64; the rest of a part line stays well under 200.
    constexpr std::size_t kSlice = 600;
    const std::size_t parts = (record.size() + kSlice - 1) / kSlice;
    std::vector<std::string> lines;
    for (std::size_t part = 0; part < parts; ++part) {
        const nlohmann::ordered_json doc = {
            {"schema", kPartSchema},
            {"node", facts.run.node_name.substr(0, 64)},
            {"id", id.substr(0, 32)},
            {"part", part + 1},
            {"parts", parts},
            {"data", util::base64_encode(std::string_view(record).substr(part * kSlice, kSlice))}};
        lines.push_back(doc.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
    }
    return lines;
}

FleetLines parse_fleet_lines(std::string_view text, const std::string& source) {
    FleetLines out;
    PartsByRecord parts;
    const auto lines = util::split_lines(text);
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const auto line = unlabelled(lines[i]);
        if (line.starts_with('{')) {
            read_line(line, fmt::format("{}:{}", source, i + 1), out, parts);
        }
    }
    for (const auto& [key, record] : parts) {
        assemble(key.first, record, out);
    }
    return out;
}

}  // namespace peergate::report::fleet
