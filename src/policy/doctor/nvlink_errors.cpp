// SPDX-License-Identifier: Apache-2.0
#include "policy/doctor/nvlink_errors.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace peergate::policy::doctor {

namespace {

using model::Finding;
using model::kNvlinkCounters;
using model::Severity;

using Counts = std::array<std::uint64_t, kNvlinkCounters>;

struct LinkCounts {
    int link = 0;
    Counts counts{};
};

constexpr std::array<std::string_view, kNvlinkCounters> kOne{"replay",
                                                             "recovery",
                                                             "CRC flit error",
                                                             "CRC data error",
                                                             "link recovery event",
                                                             "effective error"};
constexpr std::array<std::string_view, kNvlinkCounters> kMany{"replays",
                                                              "recoveries",
                                                              "CRC flit errors",
                                                              "CRC data errors",
                                                              "link recovery events",
                                                              "effective errors"};

bool any(const Counts& counts) {
    return std::any_of(counts.begin(), counts.end(), [](std::uint64_t n) { return n > 0; });
}

bool retrained(const std::vector<LinkCounts>& links) {
    return std::any_of(links.begin(), links.end(), [](const LinkCounts& link) {
        for (std::size_t k = 0; k < kNvlinkCounters; ++k) {
            if (link.counts[k] > 0 &&
                model::counts_retraining(static_cast<model::NvlinkCounter>(k))) {
                return true;
            }
        }
        return false;
    });
}

// "link 3: 2 recoveries, 120 replays; link 7: 1 CRC flit error" (sign "+" for growth).
std::string describe(const std::vector<LinkCounts>& links, std::string_view sign) {
    std::vector<std::string> parts;
    for (const auto& link : links) {
        std::vector<std::string> counts;
        for (std::size_t k = 0; k < kNvlinkCounters; ++k) {
            const auto n = link.counts[k];
            if (n > 0) {
                counts.push_back(fmt::format("{}{} {}", sign, n, n == 1 ? kOne[k] : kMany[k]));
            }
        }
        parts.push_back(fmt::format("link {}: {}", link.link, fmt::join(counts, ", ")));
    }
    return fmt::format("{}", fmt::join(parts, "; "));
}

// The links with any count above zero; an unknown count counts as none.
std::vector<LinkCounts> counting(const GpuLinks& gpu) {
    std::vector<LinkCounts> out;
    for (const auto& link : gpu.errors) {
        LinkCounts counts{.link = link.link};
        for (std::size_t k = 0; k < kNvlinkCounters; ++k) {
            counts.counts[k] = link.counts.value[k].value_or(0);
        }
        if (any(counts.counts)) {
            out.push_back(counts);
        }
    }
    return out;
}

// What each link's known counts gained from `before` to `after`. A count that fell was
// reset in between (a GPU reset, 'nvidia-smi nvlink -re') and says nothing.
std::vector<LinkCounts> growth(const GpuLinks& before, const GpuLinks& after) {
    std::vector<LinkCounts> out;
    for (const auto& now : after.errors) {
        const auto then = std::find_if(
            before.errors.begin(), before.errors.end(), [&](const model::LinkErrors& l) {
                return l.link == now.link;
            });
        if (then == before.errors.end()) {
            continue;
        }
        LinkCounts grown{.link = now.link};
        for (std::size_t k = 0; k < kNvlinkCounters; ++k) {
            const auto& a = then->counts.value[k];
            const auto& b = now.counts.value[k];
            grown.counts[k] = a && b && *b > *a ? *b - *a : 0;
        }
        if (any(grown.counts)) {
            out.push_back(grown);
        }
    }
    return out;
}

Finding standing_finding(const GpuLinks& gpu, const std::vector<LinkCounts>& links) {
    const bool recovered = retrained(links);
    return Finding{
        .code = model::FindingCode::nvlink_errors,
        .severity = recovered ? Severity::warning : Severity::info,
        .gpus = {gpu.gpu},
        .message = fmt::format(
            "GPU {} ({}) NVLinks count errors since the driver loaded: {}. {}",
            gpu.gpu,
            gpu.name,
            describe(links, ""),
            recovered ? "A recovery is the link retraining; traffic on it stalls meanwhile."
                      : "What failed a CRC check, or that forward error correction could not "
                        "repair, is sent again: the data arrives intact, later."),
        .remedy = fmt::format(
            "Tell whether they grow under load: 'peergate doctor --probe' reads them before "
            "and after moving data ('nvidia-smi nvlink -e -i {}' prints them). Counts that "
            "grow mark a marginal link: run 'dcgmi diag -r 3', then reseat or repair it.",
            gpu.gpu)};
}

Finding load_finding(const GpuLinks& gpu,
                     const std::vector<LinkCounts>& grown,
                     std::string_view while_what) {
    const bool recovered = retrained(grown);
    return Finding{
        .code = model::FindingCode::nvlink_errors_under_load,
        .severity = recovered ? Severity::error : Severity::warning,
        .gpus = {gpu.gpu},
        .message = fmt::format(
            "While {}, the NVLink error counters of GPU {} ({}) grew: {}. {}",
            while_what,
            gpu.gpu,
            gpu.name,
            describe(grown, "+"),
            recovered ? "A link retrained under load: collectives through it stall."
                      : "The data arrived intact, resent: the link runs below its bandwidth."),
        .remedy = fmt::format(
            "A link whose errors grow under load is marginal. Leave GPU {} out of "
            "tensor-parallel groups ('peergate place --gpus' without it), look for Xid 74 in "
            "the kernel log ('peergate doctor --kernel-log -'), run 'dcgmi diag -r 3', and "
            "reseat or repair the link.",
            gpu.gpu)};
}

bool by_gpu(const Finding& a, const Finding& b) {
    return a.gpus < b.gpus;
}

}  // namespace

std::vector<Finding> nvlink_error_findings(const std::vector<GpuLinks>& links) {
    std::vector<Finding> out;
    for (const auto& gpu : links) {
        if (const auto counting_links = counting(gpu); !counting_links.empty()) {
            out.push_back(standing_finding(gpu, counting_links));
        }
    }
    std::sort(out.begin(), out.end(), by_gpu);
    return out;
}

std::vector<Finding> nvlink_errors_under_load_findings(const std::vector<GpuLinks>& before,
                                                       const std::vector<GpuLinks>& after,
                                                       std::string_view while_what) {
    std::vector<Finding> out;
    for (const auto& now : after) {
        const auto then = std::find_if(
            before.begin(), before.end(), [&](const GpuLinks& g) { return g.gpu == now.gpu; });
        if (then == before.end()) {
            continue;
        }
        if (const auto grown = growth(*then, now); !grown.empty()) {
            out.push_back(load_finding(now, grown, while_what));
        }
    }
    std::sort(out.begin(), out.end(), by_gpu);
    return out;
}

}  // namespace peergate::policy::doctor
