// SPDX-License-Identifier: Apache-2.0
#include "report/probe_cache.hpp"

#include "report/probe_json.hpp"
#include "util/json_read.hpp"
#include "util/strings.hpp"

#include <nlohmann/json.hpp>

namespace peergate::report {

namespace {

constexpr const char* kSchema = "peergate.probe_cache/v1";

// A pair passed concurrent mode when every concurrent cell of it is ok on the direct path.
bool passed_concurrent(const model::ProbeResult& r, int src, int dst) {
    bool any = false;
    for (const auto& c : r.cells) {
        if (c.src != src || c.dst != dst || c.mode != model::ProbeMode::concurrent) {
            continue;
        }
        if (c.status != model::CellStatus::ok || c.path != model::CopyPath::direct) {
            return false;
        }
        any = true;
    }
    return any;
}

}  // namespace

std::string probe_cache_to_text(const ProbeCacheEntry& entry) {
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

std::optional<ProbeCacheEntry> probe_cache_from_text(const std::string& text, std::string* error) {
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
    ProbeCacheEntry entry;
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

CacheVerdict judge_cache(const std::optional<ProbeCacheEntry>& entry,
                         const model::MachineIdentity& now) {
    CacheVerdict verdict;
    if (!entry) {
        verdict.reason = "no cached probe result";
        return verdict;
    }
    // An unknown boot id cannot prove "this boot": fail closed.
    if (now.boot_id.empty()) {
        verdict.reason = "the boot id is unknown, so a cached result cannot be tied to this boot";
        return verdict;
    }
    const auto changed = model::identity_differences(entry->identity, now);
    if (!changed.empty()) {
        verdict.reason = "stale: changed since the probe: " + util::join(changed, ", ");
        return verdict;
    }
    verdict.valid = true;
    // A pair that lost data in any mode does not vouch, however its concurrent cells went:
    // the loss is load-dependent, and one seen is doubt.
    for (const auto& pair : entry->result.pairs) {
        if (pair.verdict == model::PairVerdict::data_lost) {
            verdict.lost_pairs.emplace_back(pair.src, pair.dst);
        }
        if (pair.verdict == model::PairVerdict::ok &&
            passed_concurrent(entry->result, pair.src, pair.dst)) {
            verdict.concurrent_pass_pairs.emplace_back(pair.src, pair.dst);
        }
    }
    verdict.reason = "written on this boot and machine identity";
    return verdict;
}

}  // namespace peergate::report
