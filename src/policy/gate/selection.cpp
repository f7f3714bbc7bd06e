// SPDX-License-Identifier: Apache-2.0
#include "policy/gate/selection.hpp"

#include "policy/gate/control.hpp"
#include "util/strings.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace peergate::policy::gate {

namespace {

std::vector<int> indices_of(const std::vector<model::Gpu>& gpus) {
    std::vector<int> ids;
    ids.reserve(gpus.size());
    for (const auto& gpu : gpus) {
        ids.push_back(gpu.index);
    }
    return ids;
}

std::vector<int> absent_from(const std::vector<int>& ids, const std::vector<model::Gpu>& host) {
    std::vector<int> absent;
    if (host.empty()) {
        return absent;  // the host list is unknown: nothing can be called absent here
    }
    for (const int id : ids) {
        if (model::find_gpu(host, id) == nullptr) {
            absent.push_back(id);
        }
    }
    return absent;
}

// "0,1,3" -> {0,1,3}. CUDA stops at the first negative index and shows the ones before it
// ("0,2,-1,1" shows 0 and 2; "-1" hides every GPU). nullopt for UUIDs, MIG ids or anything
// else that is not an index: then every GPU must qualify.
std::optional<std::vector<int>> numeric_mask(std::string_view mask) {
    std::vector<int> ids;
    for (std::string_view field : util::split(mask, ',')) {
        const auto id = util::parse_int<int>(util::trim(field));
        if (!id) {
            return std::nullopt;
        }
        if (*id < 0) {
            break;
        }
        ids.push_back(*id);
    }
    return ids;
}

// The identity join: child-visible PCI addresses mapped to nvidia-smi indices.
ResolvedSelection resolve_by_identity(const std::vector<model::PciAddress>& child,
                                      const std::vector<model::Gpu>& host) {
    ResolvedSelection r{.source = "cuda_identity"};
    for (const auto& pci : child) {
        const auto it = std::find_if(
            host.begin(), host.end(), [&](const model::Gpu& g) { return g.pci == pci; });
        if (it == host.end()) {
            r.unmapped.push_back(pci.to_nvml());
        } else {
            r.ids.push_back(it->index);
        }
    }
    return r;  // a join that worked is said by the source, not in the warnings
}

ResolvedSelection resolve_inherited(const GateInput& input, const std::vector<model::Gpu>& host) {
    const auto mask = input.env.get(kVisibleDevices);
    ResolvedSelection r{.ids = indices_of(host), .source = "host"};
    if (!mask) {
        return r;
    }
    const std::string_view trimmed = util::trim(*mask);
    if (trimmed.empty()) {
        r.ids.clear();
        r.source = "cuda_visible_devices";
        r.notes.push_back("CUDA_VISIBLE_DEVICES is empty: the child sees no GPU");
        return r;
    }
    const auto numeric = numeric_mask(trimmed);
    if (!numeric) {
        r.notes.push_back(fmt::format(
            "CUDA_VISIBLE_DEVICES={} is not a list of indices (a UUID or MIG mask): every GPU on "
            "the host must qualify",
            trimmed));
        return r;
    }
    if (!order_pinned(input.env)) {
        r.notes.push_back(fmt::format(
            "CUDA_VISIBLE_DEVICES={} names CUDA ordinals, which are not nvidia-smi indices "
            "unless CUDA_DEVICE_ORDER=PCI_BUS_ID: every GPU on the host must qualify",
            trimmed));
        return r;
    }
    r.ids = *numeric;
    r.source = "cuda_visible_devices";
    if (r.ids.empty()) {
        r.notes.push_back(fmt::format(
            "CUDA_VISIBLE_DEVICES={} starts with a negative index: the child sees no GPU",
            trimmed));
    }
    r.absent = absent_from(r.ids, host);
    return r;
}

bool host_has_pci(const std::vector<model::Gpu>& host) {
    return !host.empty() && std::all_of(host.begin(), host.end(), [](const model::Gpu& g) {
        return g.pci.has_value();
    });
}

}  // namespace

std::vector<model::Gpu> host_gpus(const GateInput& input) {
    auto gpus = !input.gpus.empty() ? input.gpus
                : input.topology    ? input.topology->gpus
                                    : std::vector<model::Gpu>{};
    // In index order whatever order a tier listed them in: the decision (the selection, the
    // CUDA_VISIBLE_DEVICES it writes) must not depend on it (the property test, issue 34).
    std::stable_sort(gpus.begin(), gpus.end(), [](const model::Gpu& a, const model::Gpu& b) {
        return a.index < b.index;
    });
    return gpus;
}

// The exact value only: whether the driver would accept " PCI_BUS_ID" or "pci_bus_id" is
// not documented, and a value it ignores leaves FASTEST_FIRST in force.
bool order_pinned(const util::EnvMap& env) {
    return env.get(kDeviceOrder) == "PCI_BUS_ID";
}

namespace {

// The nvidia-smi indices the launch asks for by number: --gpus, or a numeric
// CUDA_VISIBLE_DEVICES under CUDA_DEVICE_ORDER=PCI_BUS_ID; none otherwise.
std::vector<int> requested_ids(const GateInput& input) {
    if (input.selection.kind == Selection::Kind::list) {
        return input.selection.ids;
    }
    const auto mask = input.env.get(kVisibleDevices);
    if (input.selection.kind != Selection::Kind::inherit || !mask || !order_pinned(input.env)) {
        return {};
    }
    return numeric_mask(util::trim(*mask)).value_or(std::vector<int>{});
}

}  // namespace

ResolvedSelection resolve_selection(const GateInput& input, const std::vector<model::Gpu>& host) {
    if (input.child_visible && host_has_pci(host)) {
        // The child's driver stops at an index it lacks, so "0,1,9" on eight GPUs enumerates
        // 0 and 1; the 9 is still a mistake to name and veto on, not a smaller selection.
        auto resolved = resolve_by_identity(*input.child_visible, host);
        resolved.absent = absent_from(requested_ids(input), host);
        return resolved;
    }
    switch (input.selection.kind) {
        case Selection::Kind::list: {
            ResolvedSelection r{.ids = input.selection.ids, .source = "gpus"};
            r.absent = absent_from(r.ids, host);
            return r;
        }
        case Selection::Kind::all:
            return ResolvedSelection{.ids = indices_of(host), .source = "all"};
        case Selection::Kind::inherit:
            break;
    }
    return resolve_inherited(input, host);
}

std::vector<int> requested_absent(const GateInput& input) {
    if (input.selection.kind != Selection::Kind::list) {
        return {};
    }
    return absent_from(input.selection.ids, host_gpus(input));
}

std::string absent_text(const std::vector<int>& absent, const std::vector<model::Gpu>& host) {
    return fmt::format("{} {} {} not on this host (its GPUs: {})",
                       absent.size() == 1 ? "GPU" : "GPUs",
                       fmt::join(absent, ", "),
                       absent.size() == 1 ? "is" : "are",
                       host.empty() ? std::string("none known")
                                    : fmt::format("{}", fmt::join(indices_of(host), ", ")));
}

std::optional<std::string> pinning_veto(const GateInput& input, const ResolvedSelection& resolved) {
    if (input.selection.kind != Selection::Kind::list || input.pin_selection ||
        order_pinned(input.env) || resolved.source == "cuda_identity") {
        return std::nullopt;
    }
    if (input.topology && input.topology->uniformly_nvlinked()) {
        return std::nullopt;  // every permutation of ids lands on NV# pairs
    }
    return std::string(
        "the child's device order is not pinned to PCI_BUS_ID and the box is not uniformly "
        "NVLinked: its CUDA ordinals may not be the nvidia-smi indices that were gated (set "
        "CUDA_DEVICE_ORDER=PCI_BUS_ID)");
}

}  // namespace peergate::policy::gate
