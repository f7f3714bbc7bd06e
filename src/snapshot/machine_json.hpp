// SPDX-License-Identifier: Apache-2.0
// Helpers the machine file's readers share (machine_file.cpp, machine_ports.cpp): errors
// that name the file, optional fields, PCI bus ids.
#pragma once

#include "model/pci_address.hpp"
#include "util/expected.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <utility>

namespace peergate::snapshot::machine_json {

inline util::Unexpected invalid(const std::string& message) {
    return util::unexpected(util::ErrorCode::invalid_input, "machine file: " + message);
}

template <typename T>
T get_or(const nlohmann::json& j, const char* key, T fallback) {
    return j.contains(key) && !j[key].is_null() ? j[key].get<T>() : fallback;
}

// Moves a parsed section into `into`, or passes its error on (for PEERGATE_TRY).
template <typename T>
util::Expected<void> take(util::Expected<T> parsed, T& into) {
    if (!parsed) {
        return util::unexpected(parsed.error());
    }
    into = std::move(*parsed);
    return {};
}

inline util::Expected<model::PciAddress> pci_field(const nlohmann::json& j,
                                                   const std::string& where) {
    if (!j.is_string()) {
        return invalid(where + ": a PCI bus id string is required");
    }
    auto pci = model::PciAddress::parse(j.get<std::string>());
    if (!pci) {
        return invalid(where + ": " + pci.error().message);
    }
    return pci;
}

}  // namespace peergate::snapshot::machine_json
