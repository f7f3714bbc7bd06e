// SPDX-License-Identifier: Apache-2.0
#include "report/exports/nvlink_links.hpp"

#include <algorithm>
#include <map>
#include <string>

namespace peergate::report::exports {

namespace {

using Links = std::map<int, NvlinkLinkReport>;  // one GPU's, by link index

// What this run's walk of the GPU found: each slot's state, the counters NVML answered.
void add_walk(const policy::doctor::GpuLinks& walk, Links& links) {
    for (int k = 0; k < walk.slots; ++k) {
        const bool down = std::find(walk.down.begin(), walk.down.end(), k) != walk.down.end();
        links[k] = NvlinkLinkReport{.gpu = walk.gpu, .link = k, .up = !down};
    }
    for (const auto& errors : walk.errors) {
        auto& link = links[errors.link];
        link.gpu = walk.gpu;
        link.link = errors.link;
        for (std::size_t c = 0; c < model::kNvlinkCounters; ++c) {
            if (const auto& value = errors.counts.value[c]) {
                link.counts[c] = static_cast<double>(*value);
                link.read = true;
            }
        }
    }
}

// The replaced textfile's counts for this GPU, where this run read none.
void add_carried(const ExportFacts& facts, const model::Gpu& gpu, Links& links) {
    if (gpu.uuid.empty()) {
        return;
    }
    const auto& carried = facts.run.previous_link_errors;  // by UUID, then link (from 0)
    for (auto it = carried.lower_bound({.uuid = gpu.uuid, .link = 0, .counter = ""});
         it != carried.end() && it->first.uuid == gpu.uuid;
         ++it) {
        const auto& names = model::kNvlinkCounterNames;
        const auto name = std::find(names.begin(), names.end(), it->first.counter);
        if (name == names.end()) {
            continue;
        }
        auto& link = links[it->first.link];
        link.gpu = gpu.index;
        link.link = it->first.link;
        auto& count = link.counts[static_cast<std::size_t>(name - names.begin())];
        if (!count) {
            count = it->second;
        }
    }
}

}  // namespace

std::vector<NvlinkLinkReport> nvlink_link_reports(const ExportFacts& facts) {
    std::vector<NvlinkLinkReport> out;
    for (const auto& gpu : examined_gpus(facts)) {
        Links links;
        if (const auto* walk = gpu_links(facts, gpu.index)) {
            add_walk(*walk, links);
        }
        add_carried(facts, gpu, links);
        for (auto& [index, link] : links) {
            out.push_back(link);
        }
    }
    return out;
}

}  // namespace peergate::report::exports
