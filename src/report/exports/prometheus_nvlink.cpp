// SPDX-License-Identifier: Apache-2.0
#include "report/exports/prometheus_nvlink.hpp"

#include "report/exports/nvlink_links.hpp"
#include "report/exports/prometheus_family.hpp"

#include <algorithm>
#include <optional>
#include <set>
#include <utility>
#include <vector>

namespace peergate::report::exports {

namespace {

using Labels = PrometheusLabels;
using Family = PrometheusFamily;

// NVML's link walk of each GPU examined; GPUs it could not walk are not listed.
std::vector<const policy::doctor::GpuLinks*> examined_links(const ExportFacts& facts) {
    const auto gpus = examined_gpus(facts);
    std::vector<const policy::doctor::GpuLinks*> out;
    for (const auto& links : facts.doctor.links) {
        if (std::any_of(gpus.begin(), gpus.end(), [&](const model::Gpu& gpu) {
                return gpu.index == links.gpu;
            })) {
            out.push_back(&links);
        }
    }
    return out;
}

// What NVML's link walk found on each GPU examined; GPUs it could not walk have no sample.
std::string gpu_link_families(const ExportFacts& facts) {
    Family slots("peergate_gpu_nvlink_slots",
                 "gauge",
                 "NVLink indices NVML answers for on the GPU (18 on H100 and B200, 0 without).");
    Family up("peergate_gpu_nvlinks_up",
              "gauge",
              "NVLinks NVML reports active on the GPU; fewer than its model's usual is the "
              "doctor's nvlink_down.");
    for (const auto* links : examined_links(facts)) {
        slots.sample({{"gpu", std::to_string(links->gpu)}}, links->slots);
        up.sample({{"gpu", std::to_string(links->gpu)}}, links->up());
    }
    return slots.text() + up.text();
}

Labels link_labels(const NvlinkLinkReport& link) {
    return {{"gpu", std::to_string(link.gpu)}, {"link", std::to_string(link.link)}};
}

// Each link's state, counters and whether this run read them. A counter is one series per
// link whatever its state, so a link going down neither resets it nor drops its history.
std::string per_link_families(const std::vector<NvlinkLinkReport>& links) {
    Family up("peergate_gpu_nvlink_link_up",
              "gauge",
              "1 when NVML reports the NVLink active, 0 when it is not (the doctor's "
              "nvlink_down names the links down).");
    Family errors("peergate_gpu_nvlink_link_errors_total",
                  "counter",
                  "Errors of one NVLink since the driver loaded, up or down: replay (a flit "
                  "resent after a CRC error), recovery (the link retrained), crc_flit, crc_data; "
                  "on NVLink5 link_recovery_events (the link retrained), effective_errors (left "
                  "after forward error correction). A link this run did not read keeps the "
                  "counts the textfile it replaced held.");
    Family read("peergate_gpu_nvlink_link_errors_read",
                "gauge",
                "1 when this run read the link's error counters from NVML; 0 when it did not "
                "(NVML is not asked about a link that is not active, or answered no counter): "
                "peergate_gpu_nvlink_link_errors_total then holds the counts last read, if any.");
    for (const auto& link : links) {
        if (link.up) {
            up.sample(link_labels(link), *link.up ? 1 : 0);
        }
        for (std::size_t c = 0; c < model::kNvlinkCounters; ++c) {
            if (const auto& count = link.counts[c]) {
                Labels labels = link_labels(link);
                labels.emplace_back("counter", std::string(model::kNvlinkCounterNames[c]));
                errors.sample(labels, *count);
            }
        }
        read.sample(link_labels(link), link.read ? 1 : 0);
    }
    return up.text() + errors.text() + read.text();
}

// Each GPU's sum of one counter over its links, up and down alike; nullopt where no link has
// a count for it (the other generation's counters), or where some link has none while others
// do (a link down or silent with nothing carried over). Such a sum would leave out counts an
// earlier run may have added, and fall: a reset to Prometheus (issue 52). No sample is the
// series ending instead, and it comes back, no lower, once every link's count is known again.
std::optional<double> gpu_sum(const std::vector<NvlinkLinkReport>& links, int gpu, std::size_t c) {
    double sum = 0;
    int known = 0;
    int unknown = 0;
    for (const auto& link : links) {
        if (link.gpu != gpu) {
            continue;
        }
        if (const auto& count = link.counts[c]) {
            sum += *count;
            ++known;
        } else {
            ++unknown;
        }
    }
    return known > 0 && unknown == 0 ? std::optional<double>(sum) : std::nullopt;
}

// The same counters summed over each GPU's links (gpu_sum). Issue 35: before, the sum
// covered the active links only, so it fell when a link went down; kept for one release.
std::string per_gpu_sum_family(const std::vector<NvlinkLinkReport>& links) {
    Family errors("peergate_gpu_nvlink_errors_total",
                  "counter",
                  "DEPRECATED: use peergate_gpu_nvlink_link_errors_total (one series per link). "
                  "NVLink errors since the driver loaded, summed over the GPU's links, up or "
                  "down, by counter (replay, recovery, crc_flit, crc_data; NVLink5 "
                  "link_recovery_events, effective_errors); no sample while a link's count is "
                  "unknown.");
    std::set<int> gpus;
    for (const auto& link : links) {
        gpus.insert(link.gpu);
    }
    for (const int gpu : gpus) {
        for (std::size_t c = 0; c < model::kNvlinkCounters; ++c) {
            if (const auto sum = gpu_sum(links, gpu, c)) {
                errors.sample({{"gpu", std::to_string(gpu)},
                               {"counter", std::string(model::kNvlinkCounterNames[c])}},
                              *sum);
            }
        }
    }
    return errors.text();
}

}  // namespace

std::string prometheus_nvlink_families(const ExportFacts& facts) {
    const auto links = nvlink_link_reports(facts);
    return gpu_link_families(facts) + per_link_families(links) + per_gpu_sum_family(links);
}

}  // namespace peergate::report::exports
