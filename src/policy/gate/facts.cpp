// SPDX-License-Identifier: Apache-2.0
#include "policy/gate/facts.hpp"

#include "policy/gate/names.hpp"
#include "policy/gate/veto.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace peergate::policy::gate {

GateFacts::GateFacts(const GateInput& in)
    : input(in),
      control(read_control_plane(in.env)),
      inherited(read_inherited_p2p(in.env)),
      host(host_gpus(in)),
      selection(resolve_selection(in, host)) {}

std::optional<std::string> GateFacts::name_of(int id) const {
    const model::Gpu* gpu = model::find_gpu(host, id);
    return gpu != nullptr ? std::optional<std::string>(gpu->name) : std::nullopt;
}

bool GateFacts::nvlinked_to_selected_peer(int id) const {
    if (!input.topology) {
        return false;
    }
    return std::any_of(selection.ids.begin(), selection.ids.end(), [&](int peer) {
        const auto label = peer == id ? std::nullopt : input.topology->label(id, peer);
        return label && label->is_nvlink();
    });
}

bool GateFacts::datacenter_selection() const {
    if (selection.ids.empty() || !selection.absent.empty() || !selection.unmapped.empty()) {
        return false;
    }
    return std::all_of(selection.ids.begin(), selection.ids.end(), [&](int id) {
        return is_datacenter_name(name_of(id).value_or(""));
    });
}

std::optional<std::string> GateFacts::first_non_nvlink_pair() const {
    if (!input.topology) {
        return std::string("no interconnect matrix");
    }
    for (const int a : selection.ids) {
        for (const int b : selection.ids) {
            if (a == b) {
                continue;
            }
            const auto label = input.topology->label(a, b);
            if (!label) {
                return fmt::format("GPU {} to GPU {} is not in the matrix", a, b);
            }
            if (!label->is_nvlink()) {
                return pair_veto(a, b, *label);
            }
        }
    }
    return std::nullopt;
}

bool GateFacts::all_pairs_nvlinked() const {
    return selection.ids.size() >= 2 && !first_non_nvlink_pair().has_value();
}

}  // namespace peergate::policy::gate
