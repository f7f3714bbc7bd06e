// SPDX-License-Identifier: Apache-2.0
// libFuzzer entry for the probe cache reader (peergate.probe_cache/v1, the file the gate may
// trust for PCIe pairs). Beyond "no crash": a rejection says why; an accepted entry writes
// back to text that reads as the same entry; it is never valid on another boot or an
// unknown one; and on its own identity it vouches only for pairs it lists as intact.
#include "policy/gate/probe_cache.hpp"
#include "report/probe/cache_json.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace {

using peergate::model::ProbeCacheEntry;

void check_round_trip(const ProbeCacheEntry& entry) {
    std::string error;
    const auto again = peergate::report::probe::probe_cache_from_text(
        peergate::report::probe::probe_cache_to_text(entry), &error);
    if (!again || again->identity != entry.identity || again->result != entry.result ||
        again->written_at != entry.written_at) {
        std::abort();
    }
}

bool listed_intact(const peergate::model::ProbeResult& result, int src, int dst) {
    return std::any_of(result.pairs.begin(), result.pairs.end(), [&](const auto& pair) {
        return pair.src == src && pair.dst == dst &&
               pair.verdict == peergate::model::PairVerdict::ok;
    });
}

void check_judgement(const ProbeCacheEntry& entry) {
    auto other_boot = entry.identity;
    other_boot.boot_id += "-next";
    auto unknown_boot = entry.identity;
    unknown_boot.boot_id.clear();
    for (const auto& now : {other_boot, unknown_boot}) {
        const auto verdict = peergate::policy::gate::judge_cache(entry, now);
        if (verdict.valid || !verdict.concurrent_pass_pairs.empty() || verdict.reason.empty()) {
            std::abort();
        }
    }
    if (entry.identity.boot_id.empty()) {
        return;
    }
    const auto same = peergate::policy::gate::judge_cache(entry, entry.identity);
    if (!same.valid) {
        std::abort();
    }
    for (const auto& [src, dst] : same.concurrent_pass_pairs) {
        if (!listed_intact(entry.result, src, dst)) {
            std::abort();
        }
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);  // NOLINT: bytes as text
    std::string error;
    const auto entry = peergate::report::probe::probe_cache_from_text(text, &error);
    if (!entry) {
        if (error.empty()) {
            std::abort();
        }
        return 0;
    }
    check_round_trip(*entry);
    check_judgement(*entry);
    return 0;
}
