// SPDX-License-Identifier: Apache-2.0
#include "policy/doctor/vllm.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <string>

namespace peergate::policy::doctor {

namespace {

// The first finding that makes PCIe peer copies unsafe on this host, whatever a small copy
// showed (the catalogue's kPeerCopiesUnsafe, at error severity).
const model::Finding* unsafe_peer_copies(const std::vector<model::Finding>& findings) {
    const auto it = std::find_if(findings.begin(), findings.end(), [&](const model::Finding& f) {
        return f.severity == model::Severity::error && f.has(model::kPeerCopiesUnsafe);
    });
    return it == findings.end() ? nullptr : &*it;
}

}  // namespace

std::optional<model::Finding> p2p_cache_finding(const P2pCacheEngine& engine,
                                                const std::vector<model::VllmP2pCache>& caches,
                                                const std::vector<model::Finding>& so_far) {
    const model::Finding* unsafe = unsafe_peer_copies(so_far);
    if (unsafe == nullptr) {
        return std::nullopt;
    }
    std::vector<std::string> claims;
    for (const auto& cache : caches) {
        const auto pairs = gate::claimed_peer_pairs(cache);
        if (!pairs.empty()) {
            claims.push_back(fmt::format("{} ({})", cache.path, fmt::join(pairs, ", ")));
        }
    }
    if (claims.empty()) {
        return std::nullopt;
    }
    return model::Finding{
        .code = engine.code,
        .severity = model::Severity::warning,
        .message = fmt::format(
            "{0}'s own P2P cache says peer access works here, where {1} says PCIe peer copies "
            "are not safe: {2}. {0} wrote it after one small copy per pair and reads it instead "
            "of testing again, on every boot, so its custom all-reduce runs over peer access",
            engine.name,
            unsafe->id(),
            fmt::join(claims, "; ")),
        .remedy = fmt::format(
            "Delete the file(s) and launch {0} with --disable-custom-all-reduce (peergate exec "
            "--for {1} names both at launch); {2} alone does not help while the file is there.",
            engine.name,
            engine.profile,
            engine.test_setting)};
}

}  // namespace peergate::policy::doctor
