// SPDX-License-Identifier: Apache-2.0
// peergate.probe/v1: the integrity probe's result as JSON (docs/contracts.md "JSON documents").
#pragma once

#include "model/probe_result.hpp"

#include <nlohmann/json.hpp>

namespace peergate::report::probe {

// schema, result, reason, gpus, modes, verify, verify_note, cells, pairs, remedy.
nlohmann::ordered_json probe_to_json(const model::ProbeResult& result);

// The inverse, for the verdict cache; nullopt when `json` is not a probe document.
std::optional<model::ProbeResult> probe_from_json(const nlohmann::json& json);

}  // namespace peergate::report::probe
