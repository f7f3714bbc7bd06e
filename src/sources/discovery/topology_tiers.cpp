// SPDX-License-Identifier: Apache-2.0
#include "sources/discovery/topology_tiers.hpp"

#include "sources/nvml/nvml_tier.hpp"
#include "sources/smi/smi_runner.hpp"

#include <algorithm>
#include <iterator>

namespace peergate::sources {

namespace {

constexpr const char* kNoMatrix =
    "neither NVML nor nvidia-smi topo -m gave a usable interconnect matrix";

TierAttempt try_smi(const util::Seams& seams,
                    const util::EnvMap& env,
                    const DiscoveryRequest& request) {
    TierAttempt attempt{.tier = "nvidia-smi"};
    auto topology = smi::smi_topology(seams.nvidia_smi, env, request.smi_timeout);
    if (topology) {
        attempt.topology = std::move(*topology);
    } else {
        attempt.reason = topology.error().message;
    }
    return attempt;
}

// NVML tier: the whole matrix or no verdict, behind the watchdog (docs/gate-rules.md §3 tier 1).
TierAttempt try_nvml(const util::Seams& seams, const DiscoveryRequest& request) {
    TierAttempt attempt{.tier = "nvml"};
    auto result =
        nvml::run_nvml_tier(nvml::NvmlTierOptions{.libraries = seams.nvml_libraries,
                                                  .host_root = seams.host_root,
                                                  .watchdog = request.nvml_watchdog,
                                                  .with_record = request.nvml_record != nullptr,
                                                  .simulated_machine = seams.simulated_machine});
    if (request.nvml_record != nullptr) {
        *request.nvml_record = std::move(result.record);
    }
    if (result.topology) {
        attempt.topology = std::move(*result.topology);
    } else {
        attempt.reason = result.topology.error().message;
        attempt.lone_gpu = std::move(result.lone_gpu);
    }
    return attempt;
}

std::vector<std::pair<int, int>> unordered_nvlinks(const model::Topology& topology) {
    std::vector<std::pair<int, int>> pairs;
    for (const auto& [a, b] : topology.nvlinked_pairs()) {
        if (a < b) {
            pairs.emplace_back(a, b);
        }
    }
    return pairs;
}

}  // namespace

CrossCheck compare_tiers(const model::Topology& nvml, const model::Topology& smi) {
    const auto from_nvml = unordered_nvlinks(nvml);
    const auto from_smi = unordered_nvlinks(smi);
    CrossCheck check;
    std::set_difference(from_nvml.begin(),
                        from_nvml.end(),
                        from_smi.begin(),
                        from_smi.end(),
                        std::back_inserter(check.nvml_only));
    std::set_difference(from_smi.begin(),
                        from_smi.end(),
                        from_nvml.begin(),
                        from_nvml.end(),
                        std::back_inserter(check.smi_only));
    return check;
}

Discovery discover_topology(const util::Seams& seams,
                            const util::EnvMap& env,
                            const DiscoveryRequest& request) {
    Discovery discovery;
    const bool want_nvml = request.tier != TierChoice::smi;
    const bool want_smi = request.tier != TierChoice::nvml;
    if (want_nvml) {
        discovery.attempts.push_back(try_nvml(seams, request));
    }
    const bool nvml_answered = want_nvml && discovery.attempts.back().topology.has_value();
    if (want_smi && (!nvml_answered || request.crosscheck)) {
        discovery.attempts.push_back(try_smi(seams, env, request));
    }
    const TierAttempt* nvml = want_nvml ? &discovery.attempts.front() : nullptr;
    const TierAttempt* smi = want_smi && discovery.attempts.back().tier == "nvidia-smi"
                                 ? &discovery.attempts.back()
                                 : nullptr;
    if (request.crosscheck && nvml && smi && nvml->topology && smi->topology) {
        discovery.crosscheck = compare_tiers(*nvml->topology, *smi->topology);
    }
    // nvidia-smi wins on a cross-check; otherwise the first tier that answered.
    if (request.crosscheck && smi && smi->topology) {
        discovery.topology = smi->topology;
    } else if (nvml && nvml->topology) {
        discovery.topology = nvml->topology;
    } else if (smi && smi->topology) {
        discovery.topology = smi->topology;
    } else {
        discovery.reason = kNoMatrix;
        if (nvml) {
            discovery.lone_gpu = nvml->lone_gpu;
        }
    }
    return discovery;
}

}  // namespace peergate::sources
