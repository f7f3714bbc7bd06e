// SPDX-License-Identifier: Apache-2.0
#include "report/exports/nfd_nvlink.hpp"

#include "report/exports/facts.hpp"
#include "util/strings.hpp"

#include <algorithm>
#include <map>
#include <numeric>

namespace peergate::report::exports {

namespace {

// Kubernetes' limit on a label value (docs/ecosystem.md §1.4).
constexpr std::size_t kLabelValueLimit = 63;

}  // namespace

std::vector<int> NfdNvlinks::largest() const {
    const auto found =
        std::max_element(islands.begin(), islands.end(), [](const auto& a, const auto& b) {
            return a.size() < b.size();  // max_element keeps the first of the largest
        });
    return found == islands.end() ? std::vector<int>{} : *found;
}

NfdNvlinks nfd_nvlinks(const model::Topology& topology, const std::vector<model::Gpu>& gpus) {
    NfdNvlinks out;
    std::vector<std::size_t> island(gpus.size());
    std::iota(island.begin(), island.end(), std::size_t{0});
    out.min_links = gpus.size() > 1 ? 1 << 30 : 0;
    for (std::size_t i = 0; i < gpus.size(); ++i) {
        for (std::size_t j = i + 1; j < gpus.size(); ++j) {
            const int links = nvlinks_between(topology, gpus[i].index, gpus[j].index);
            out.min_links = std::min(out.min_links, links);
            if (links > 0) {
                std::replace(island.begin(), island.end(), island[j], island[i]);
            }
        }
    }
    std::map<std::size_t, std::vector<int>> members;  // by island
    for (std::size_t j = 0; j < gpus.size(); ++j) {
        members[island[j]].push_back(gpus[j].index);
    }
    for (auto& [label, gpus_of] : members) {
        if (gpus_of.size() >= 2) {
            std::sort(gpus_of.begin(), gpus_of.end());
            out.islands.push_back(std::move(gpus_of));
        }
    }
    std::sort(out.islands.begin(), out.islands.end());
    return out;
}

std::optional<std::string> gpu_list_label(const std::vector<int>& gpus) {
    const auto text = util::join_ints(gpus, "_");
    if (text.empty() || text.size() > kLabelValueLimit) {
        return std::nullopt;
    }
    return text;
}

}  // namespace peergate::report::exports
