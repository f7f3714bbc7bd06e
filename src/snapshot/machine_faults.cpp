// SPDX-License-Identifier: Apache-2.0
#include "snapshot/machine_faults.hpp"

#include "snapshot/machine_json.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <string_view>

namespace peergate::snapshot {

namespace {

using Json = nlohmann::json;

using machine_json::get_or;
using machine_json::invalid;

// The SM paths' faults name what goes wrong in the simulated kernels (docs/machine-file.md).
util::Expected<void> check_peer_path_effect(const MachineFault& fault, std::size_t k) {
    const bool known = fault.layer == "sm" ? fault.effect == "drop" || fault.effect == "corrupt" ||
                                                 fault.effect == "mirror"
                       : fault.layer == "flag" ? fault.effect == "lost" || fault.effect == "early"
                                               : true;
    if (!known) {
        return invalid(fmt::format("faults[{}].effect: '{}' is not one of {} for layer {}",
                                   k,
                                   fault.effect,
                                   fault.layer == "sm" ? "drop, corrupt, mirror" : "lost, early",
                                   fault.layer));
    }
    return {};
}

}  // namespace

util::Expected<MachineFault> parse_fault(const Json& j, std::size_t k) {
    // No static with a destructor here: a hung simulated call may still be parsing on an
    // abandoned worker thread while the process runs its exit-time destructors.
    constexpr std::array<std::string_view, 8> kEffects{
        "fail", "unknown", "hang", "missing", "exit", "truncated", "drop", "corrupt"};
    MachineFault fault;
    fault.layer = get_or<std::string>(j, "layer", "");
    fault.call = get_or<std::string>(j, "call", "");
    fault.effect = get_or<std::string>(j, "effect", "");
    if (fault.layer != "nvml" && fault.layer != "smi" && fault.layer != "cuda" &&
        fault.layer != "copy" && fault.layer != "sm" && fault.layer != "flag") {
        return invalid(fmt::format(
            "faults[{}].layer: '{}' is not nvml, smi, cuda, copy, sm or flag", k, fault.layer));
    }
    PEERGATE_TRY(check_peer_path_effect(fault, k));
    const bool peer_path = fault.layer == "sm" || fault.layer == "flag";
    if (!peer_path && std::find(kEffects.begin(), kEffects.end(), fault.effect) == kEffects.end()) {
        return invalid(
            fmt::format("faults[{}].effect: '{}' is not a known effect", k, fault.effect));
    }
    fault.code = get_or(j, "code", 0);
    fault.src = get_or(j, "src", -1);
    fault.dst = get_or(j, "dst", -1);
    fault.min_bytes = get_or<std::uint64_t>(j, "min_bytes", 0);
    fault.min_inflight = get_or(j, "min_inflight", 0);
    fault.after_copies = get_or<std::int64_t>(j, "after_copies", 0);
    if (fault.after_copies < 0) {
        return invalid(fmt::format("faults[{}].after_copies must be 0 or more", k));
    }
    fault.fraction = get_or(j, "fraction", 1.0);
    // The simulated driver draws the affected copies in millionths: a smaller fraction would
    // silently be no fault at all.
    if (fault.fraction < 1e-6 || fault.fraction > 1.0) {
        return invalid(fmt::format(
            "faults[{}].fraction must be in [0.000001, 1] (the simulator counts millionths)", k));
    }
    return fault;
}

nlohmann::ordered_json fault_to_json(const MachineFault& f) {
    return nlohmann::ordered_json{{"layer", f.layer},
                                  {"call", f.call},
                                  {"effect", f.effect},
                                  {"code", f.code},
                                  {"src", f.src},
                                  {"dst", f.dst},
                                  {"min_bytes", f.min_bytes},
                                  {"min_inflight", f.min_inflight},
                                  {"after_copies", f.after_copies},
                                  {"fraction", f.fraction}};
}

}  // namespace peergate::snapshot
