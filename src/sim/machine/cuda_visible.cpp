// SPDX-License-Identifier: Apache-2.0
#include "sim/machine/cuda_visible.hpp"

#include <algorithm>
#include <cctype>
#include <numeric>
#include <string_view>
#include <tuple>

namespace peergate::sim {

namespace {

std::string_view trimmed(std::string_view text) {
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())) != 0) {
        text.remove_prefix(1);
    }
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())) != 0) {
        text.remove_suffix(1);
    }
    return text;
}

bool starts_with_folded(std::string_view text, std::string_view prefix) {
    return text.size() >= prefix.size() &&
           std::equal(prefix.begin(), prefix.end(), text.begin(), [](char a, char b) {
               return std::tolower(static_cast<unsigned char>(a)) ==
                      std::tolower(static_cast<unsigned char>(b));
           });
}

std::optional<std::size_t> parse_ordinal(std::string_view entry) {
    if (entry.empty() || entry.size() > 6 ||
        !std::all_of(entry.begin(), entry.end(), [](char c) { return c >= '0' && c <= '9'; })) {
        return std::nullopt;
    }
    std::size_t value = 0;
    for (const char c : entry) {
        value = value * 10 + static_cast<std::size_t>(c - '0');
    }
    return value;
}

// The position one entry names, or nullopt for a bad or ambiguous one.
std::optional<std::size_t> resolve_entry(const std::vector<snapshot::MachineGpu>& gpus,
                                         const std::vector<std::size_t>& order,
                                         std::string_view entry) {
    if (auto ordinal = parse_ordinal(entry)) {
        return *ordinal < order.size() ? std::optional(order[*ordinal]) : std::nullopt;
    }
    if (!starts_with_folded(entry, "GPU-") || entry.size() <= 4) {
        return std::nullopt;  // MIG ids and anything else stop the list here
    }
    std::optional<std::size_t> found;
    for (const std::size_t p : order) {
        if (starts_with_folded(gpus[p].uuid, entry)) {
            if (found) {
                return std::nullopt;  // a prefix of two UUIDs names neither
            }
            found = p;
        }
    }
    return found;
}

}  // namespace

std::vector<std::size_t> cuda_enumeration_order(const std::vector<snapshot::MachineGpu>& gpus,
                                                const std::optional<std::string>& device_order) {
    std::vector<std::size_t> order(gpus.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    const bool by_bus = device_order && trimmed(*device_order) == "PCI_BUS_ID";
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        const snapshot::MachineGpu& x = gpus[a];
        const snapshot::MachineGpu& y = gpus[b];
        if (!by_bus) {
            const auto speed = [](const snapshot::MachineGpu& g) {
                return std::tuple(g.cc_major, g.cc_minor, g.memory_bytes);
            };
            if (speed(x) != speed(y)) {
                return speed(x) > speed(y);
            }
        }
        return x.pci < y.pci;
    });
    return order;
}

std::vector<std::size_t> apply_visible_mask(const std::vector<snapshot::MachineGpu>& gpus,
                                            const std::vector<std::size_t>& order,
                                            const std::optional<std::string>& visible) {
    if (!visible) {
        return order;
    }
    std::vector<std::size_t> out;
    std::string_view rest = *visible;
    if (trimmed(rest).empty()) {
        return out;
    }
    while (true) {
        const auto comma = rest.find(',');
        const auto position = resolve_entry(gpus, order, trimmed(rest.substr(0, comma)));
        if (!position || std::find(out.begin(), out.end(), *position) != out.end()) {
            break;
        }
        out.push_back(*position);
        if (comma == std::string_view::npos) {
            break;
        }
        rest.remove_prefix(comma + 1);
    }
    return out;
}

std::vector<std::size_t> cuda_visible_positions(const std::vector<snapshot::MachineGpu>& gpus,
                                                const std::optional<std::string>& visible,
                                                const std::optional<std::string>& device_order) {
    return apply_visible_mask(gpus, cuda_enumeration_order(gpus, device_order), visible);
}

namespace {

template <typename T>
std::vector<std::vector<T>> permuted(const std::vector<std::vector<T>>& table,
                                     const std::vector<std::size_t>& positions) {
    if (table.empty()) {
        return table;  // "derived" stays derived
    }
    std::vector<std::vector<T>> out;
    for (const std::size_t p : positions) {
        std::vector<T> row;
        for (const std::size_t q : positions) {
            if (p < table.size() && q < table[p].size()) {
                row.push_back(table[p][q]);
            }
        }
        out.push_back(std::move(row));
    }
    return out;
}

}  // namespace

snapshot::MachineFile restrict_to_positions(const snapshot::MachineFile& machine,
                                            const std::vector<std::size_t>& positions) {
    snapshot::MachineFile out = machine;
    out.gpus.clear();
    for (const std::size_t p : positions) {
        out.gpus.push_back(machine.gpus.at(p));
    }
    out.matrix = permuted(machine.matrix, positions);
    out.cuda_can_access_peer = permuted(machine.cuda_can_access_peer, positions);
    out.bandwidth.p2p_gbps = permuted(machine.bandwidth.p2p_gbps, positions);
    return out;
}

}  // namespace peergate::sim
