// SPDX-License-Identifier: Apache-2.0
#include "report/probe_cache.hpp"

#include "report/probe_json.hpp"
#include "util/strings.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <iterator>

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

bool covers(const model::ProbeResult& r, int src, int dst) {
    return std::any_of(r.pairs.begin(), r.pairs.end(), [&](const model::ProbePair& p) {
        return p.src == src && p.dst == dst;
    });
}

model::ProbeOutcome outcome_of(const std::vector<model::ProbePair>& pairs) {
    auto any = [&](model::PairVerdict verdict) {
        return std::any_of(pairs.begin(), pairs.end(), [&](const model::ProbePair& p) {
            return p.verdict == verdict;
        });
    };
    if (any(model::PairVerdict::data_lost)) {
        return model::ProbeOutcome::fail;
    }
    const bool open = any(model::PairVerdict::error) || any(model::PairVerdict::skipped);
    return open ? model::ProbeOutcome::inconclusive : model::ProbeOutcome::pass;
}

// The earlier result's GPUs and modes that the latest lacks, appended in ascending order.
void add_missing(const model::ProbeResult& earlier, model::ProbeResult& latest) {
    for (int gpu : earlier.gpus) {
        if (std::find(latest.gpus.begin(), latest.gpus.end(), gpu) == latest.gpus.end()) {
            latest.gpus.push_back(gpu);
        }
    }
    std::sort(latest.gpus.begin(), latest.gpus.end());
    for (auto mode : earlier.modes) {
        if (std::find(latest.modes.begin(), latest.modes.end(), mode) == latest.modes.end()) {
            latest.modes.push_back(mode);
        }
    }
}

}  // namespace

model::ProbeResult merge_probe_results(const model::ProbeResult& earlier,
                                       model::ProbeResult latest) {
    const model::ProbeResult just_run = latest;
    std::size_t kept = 0;
    for (const auto& pair : earlier.pairs) {
        if (covers(just_run, pair.src, pair.dst)) {
            continue;
        }
        ++kept;
        latest.pairs.push_back(pair);
        std::copy_if(
            earlier.cells.begin(),
            earlier.cells.end(),
            std::back_inserter(latest.cells),
            [&](const model::ProbeCell& c) { return c.src == pair.src && c.dst == pair.dst; });
    }
    if (kept == 0) {
        return latest;
    }
    add_missing(earlier, latest);
    std::sort(latest.pairs.begin(), latest.pairs.end(), [](const auto& a, const auto& b) {
        return std::pair(a.src, a.dst) < std::pair(b.src, b.dst);
    });
    latest.outcome = outcome_of(latest.pairs);
    latest.reason += fmt::format(
        " (with {} ordered pair{} from an earlier probe on this boot)", kept, kept == 1 ? "" : "s");
    return latest;
}

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
    if (doc.is_discarded() || !doc.is_object() || doc.value("schema", "") != kSchema) {
        return fail("not a peergate.probe_cache/v1 document");
    }
    const auto& id = doc.value("identity", nlohmann::json::object());
    ProbeCacheEntry entry;
    try {
        entry.written_at = doc.value("written_at", "");
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
        if (pair.verdict == model::PairVerdict::ok &&
            passed_concurrent(entry->result, pair.src, pair.dst)) {
            verdict.concurrent_pass_pairs.emplace_back(pair.src, pair.dst);
        }
    }
    verdict.reason = "written on this boot and machine identity";
    return verdict;
}

}  // namespace peergate::report
