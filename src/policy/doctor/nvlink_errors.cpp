// SPDX-License-Identifier: Apache-2.0
#include "policy/doctor/nvlink_errors.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
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

// How NVLink error counts are graded (docs/doctor.md, "How NVLink error counts are graded").
// Each counter of each link on its own, whatever the GPU or its counter set: a GPU's finding
// is as severe as its worst link. A CRC error and the replay it causes are one event counted
// twice, so the counters are not summed; nor are links, since a marginal link is one link.
// Counts at or above `warning` give a warning, at or above `error` an error, below both a note.
struct Ladder {
    std::uint64_t warning = 0;
    std::uint64_t error = 0;
};

// Since the driver loaded, over an unknown time: a few resends over weeks are ordinary, a
// hundred of one kind on one link is a link that keeps failing its checks, a thousand one that
// is marginal. Each retraining stalls the link's traffic: one is a warning, ten an error.
constexpr Ladder kStandingResend{.warning = 100, .error = 1000};
constexpr Ladder kStandingRetrain{.warning = 1, .error = 10};
// Gained during one load, minutes at most: the same ladder one step up.
constexpr Ladder kGrowthResend{.warning = 1, .error = 100};
constexpr Ladder kGrowthRetrain{.warning = 1, .error = 1};
// Resends per second of load from which a link fails: DCGM's health watch limit for NVLink
// CRC errors (DCGM_LIMIT_MAX_NVLINK_CRC_ERROR, "CRC errors only matter at rates of 100+ per
// second" per NVIDIA's driver team), applied where the load's duration is known.
constexpr double kResendsPerSecondLimit = 100.0;

Severity grade(std::uint64_t count, const Ladder& ladder) {
    return count >= ladder.error     ? Severity::error
           : count >= ladder.warning ? Severity::warning
                                     : Severity::info;
}

bool is_retraining(std::size_t counter) {
    return model::counts_retraining(static_cast<model::NvlinkCounter>(counter));
}

// The worst grade of any counter of any link in `links`, read since the driver loaded.
Severity standing_severity(const std::vector<LinkCounts>& links) {
    Severity worst = Severity::info;
    for (const auto& link : links) {
        for (std::size_t k = 0; k < kNvlinkCounters; ++k) {
            const auto n = link.counts[k];
            worst =
                std::min(worst, grade(n, is_retraining(k) ? kStandingRetrain : kStandingResend));
        }
    }
    return worst;
}

// The worst grade of what `grown` gained during a load of `load_seconds` (nullopt: unknown).
Severity growth_severity(const std::vector<LinkCounts>& grown, std::optional<double> load_seconds) {
    Severity worst = Severity::info;
    for (const auto& link : grown) {
        for (std::size_t k = 0; k < kNvlinkCounters; ++k) {
            const auto n = link.counts[k];
            if (n == 0) {
                continue;
            }
            worst = std::min(worst, grade(n, is_retraining(k) ? kGrowthRetrain : kGrowthResend));
            if (load_seconds && *load_seconds > 0 &&
                static_cast<double>(n) / *load_seconds >= kResendsPerSecondLimit) {
                worst = Severity::error;
            }
        }
    }
    return worst;
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

// Why a standing count is graded above a note (the ladder's thresholds, in words).
std::string_view standing_grade_text(Severity severity) {
    switch (severity) {
        case Severity::error:
            return " 1000 or more of one count on one link, or 10 or more recoveries, mark a "
                   "marginal link: an error.";
        case Severity::warning:
            return " 100 or more of one count on one link, or a recovery, is more than a sound "
                   "link gathers: a warning.";
        case Severity::info:
            break;
    }
    return "";
}

Finding standing_finding(const GpuLinks& gpu, const std::vector<LinkCounts>& links) {
    const bool recovered = retrained(links);
    const Severity severity = standing_severity(links);
    return Finding{
        .code = model::FindingCode::nvlink_errors,
        .severity = severity,
        .gpus = {gpu.gpu},
        .message = fmt::format(
            "GPU {} ({}) NVLinks count errors since the driver loaded: {}. {}{}",
            gpu.gpu,
            gpu.name,
            describe(links, ""),
            recovered ? "A recovery is the link retraining; traffic on it stalls meanwhile."
                      : "What failed a CRC check, or that forward error correction could not "
                        "repair, is sent again: the data arrives intact, later.",
            standing_grade_text(severity)),
        .remedy = fmt::format(
            "Tell whether they grow under load: 'peergate doctor --probe' reads them before "
            "and after moving data ('nvidia-smi nvlink -e -i {}' prints them). Counts that "
            "grow mark a marginal link: run 'dcgmi diag -r 3', then reseat or repair it.{}",
            gpu.gpu,
            severity == Severity::error
                ? fmt::format(" Meanwhile leave GPU {} out of tensor-parallel groups.", gpu.gpu)
                : "")};
}

// " over 0.8 s of transfers" where the load's duration is known.
std::string load_time_text(std::optional<double> load_seconds) {
    return load_seconds && *load_seconds > 0
               ? fmt::format(" over {:.3g} s of transfers", *load_seconds)
               : std::string();
}

Finding load_finding(const GpuLinks& gpu,
                     const std::vector<LinkCounts>& grown,
                     std::string_view while_what,
                     std::optional<double> load_seconds) {
    const bool recovered = retrained(grown);
    const Severity severity = growth_severity(grown, load_seconds);
    return Finding{
        .code = model::FindingCode::nvlink_errors_under_load,
        .severity = severity,
        .gpus = {gpu.gpu},
        .message = fmt::format(
            "While {}, the NVLink error counters of GPU {} ({}) grew{}: {}. {}{}",
            while_what,
            gpu.gpu,
            gpu.name,
            load_time_text(load_seconds),
            describe(grown, "+"),
            recovered ? "A link retrained under load: collectives through it stall."
                      : "The data arrived intact, resent: the link runs below its bandwidth.",
            severity == Severity::error && !recovered
                ? " 100 or more of one count on one link, or 100 a second, under load mark a "
                  "marginal link: an error."
                : ""),
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
                                                       std::string_view while_what,
                                                       std::optional<double> load_seconds) {
    std::vector<Finding> out;
    for (const auto& now : after) {
        const auto then = std::find_if(
            before.begin(), before.end(), [&](const GpuLinks& g) { return g.gpu == now.gpu; });
        if (then == before.end()) {
            continue;
        }
        if (const auto grown = growth(*then, now); !grown.empty()) {
            out.push_back(load_finding(now, grown, while_what, load_seconds));
        }
    }
    std::sort(out.begin(), out.end(), by_gpu);
    return out;
}

}  // namespace peergate::policy::doctor
