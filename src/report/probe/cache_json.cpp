// SPDX-License-Identifier: Apache-2.0
#include "report/probe/cache_json.hpp"

#include "report/probe/json.hpp"
#include "util/json_read.hpp"

#include <nlohmann/json.hpp>

namespace peergate::report::probe {

namespace {

constexpr const char* kSchema = "peergate.probe_cache/v1";

}  // namespace

std::string probe_cache_to_text(const model::ProbeCacheEntry& entry) {
    const auto& id = entry.identity;
    nlohmann::ordered_json doc{{"schema", kSchema},
                               {"written_at", entry.written_at},
                               {"identity",
                                {{"driver_version", id.driver_version},
                                 {"gpu_uuids", id.gpu_uuids},
                                 {"pci_bus_ids", id.pci_bus_ids},
                                 {"iommu", id.iommu},
                                 {"kernel_cmdline", id.kernel_cmdline},
                                 {"boot_id", id.boot_id}}},
                               {"probe", probe_to_json(entry.result)}};
    return doc.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

std::optional<model::ProbeCacheEntry> probe_cache_from_text(const std::string& text,
                                                            std::string* error) {
    const auto doc = nlohmann::json::parse(text, nullptr, false);
    auto fail = [error](const char* why) {
        if (error != nullptr) {
            *error = why;
        }
        return std::nullopt;
    };
    if (!util::json_string_is(doc, "schema", kSchema)) {
        return fail("not a peergate.probe_cache/v1 document");
    }
    const auto& id = doc.value("identity", nlohmann::json::object());
    model::ProbeCacheEntry entry;
    try {
        const auto written = doc.find("written_at");  // informational: any other type reads as ""
        entry.written_at =
            written != doc.end() && written->is_string() ? written->get<std::string>() : "";
        entry.identity.driver_version = id.at("driver_version").get<std::string>();
        entry.identity.gpu_uuids = id.at("gpu_uuids").get<std::vector<std::string>>();
        entry.identity.pci_bus_ids = id.at("pci_bus_ids").get<std::vector<std::string>>();
        entry.identity.iommu = id.at("iommu").get<std::string>();
        entry.identity.kernel_cmdline = id.at("kernel_cmdline").get<std::string>();
        entry.identity.boot_id = id.at("boot_id").get<std::string>();
    } catch (const nlohmann::json::exception&) {
        return fail("the identity is incomplete");
    }
    auto result = probe_from_json(doc.value("probe", nlohmann::json::object()));
    if (!result) {
        return fail("the probe result is unreadable");
    }
    entry.result = std::move(*result);
    return entry;
}

}  // namespace peergate::report::probe
