// SPDX-License-Identifier: Apache-2.0
#include "engine/probe_plan.hpp"

#include <fmt/format.h>

#include <set>

namespace peergate::engine {

namespace {

util::Unexpected usage(std::string message) {
    return util::unexpected(util::ErrorCode::invalid_input, std::move(message));
}

std::vector<PositionPair> ordered_pairs(int count) {
    std::vector<PositionPair> pairs;
    for (int src = 0; src < count; ++src) {
        for (int dst = 0; dst < count; ++dst) {
            if (src != dst) {
                pairs.push_back({src, dst});
            }
        }
    }
    return pairs;
}

void add_mode_groups(const ProbePlan& plan, model::ProbeMode mode, std::vector<CopyGroup>& out) {
    const int count = static_cast<int>(plan.gpus.size());
    switch (mode) {
        case model::ProbeMode::serial:
            for (const auto& pair : ordered_pairs(count)) {
                for (const auto size : plan.sizes_bytes) {
                    out.push_back({mode, size, {pair}});
                }
            }
            break;
        case model::ProbeMode::bidirectional:
            for (int a = 0; a < count; ++a) {
                for (int b = a + 1; b < count; ++b) {
                    for (const auto size : plan.sizes_bytes) {
                        out.push_back({mode, size, {{a, b}, {b, a}}});
                    }
                }
            }
            break;
        case model::ProbeMode::concurrent:
            for (const auto size : plan.sizes_bytes) {
                out.push_back({mode, size, ordered_pairs(count)});
            }
            break;
    }
}

}  // namespace

util::Expected<ProbePlan> make_probe_plan(const ProbeRequest& request) {
    if (request.sizes_mib.empty()) {
        return usage("--sizes-mib: give at least one size");
    }
    for (const auto size : request.sizes_mib) {
        if (size <= 0 || size > kMaxSizeMib) {
            return usage(
                fmt::format("--sizes-mib: {} is not a size from 1 to {} MiB", size, kMaxSizeMib));
        }
    }
    if (request.repeats <= 0 || request.repeats > 1000) {
        return usage(fmt::format("--repeats: {} is not a count from 1 to 1000", request.repeats));
    }
    if (request.modes.empty()) {
        return usage("--mode: give at least one mode");
    }
    if (request.timeout.count() <= 0) {
        return usage("--timeout: must be more than 0 seconds");
    }
    if (request.soak.count() < 0 || request.soak > kMaxSoak) {
        return usage(fmt::format("--soak: {} s is not a duration from 0 to {} s (a week)",
                                 std::chrono::duration<double>(request.soak).count(),
                                 std::chrono::seconds(kMaxSoak).count()));
    }
    if (std::set<int>(request.gpus.begin(), request.gpus.end()).size() != request.gpus.size()) {
        return usage("--gpus: a GPU is listed twice");
    }
    ProbePlan plan{.gpus = request.gpus,
                   .sizes_bytes = {},
                   .repeats = static_cast<int>(request.repeats),
                   .modes = request.modes,
                   .timeout = request.timeout,
                   .soak = request.soak};
    for (const auto size : request.sizes_mib) {
        plan.sizes_bytes.push_back(static_cast<std::uint64_t>(size) << 20U);
    }
    return plan;
}

std::vector<CopyGroup> plan_groups(const ProbePlan& plan) {
    std::vector<CopyGroup> groups;
    for (const auto mode : plan.modes) {
        add_mode_groups(plan, mode, groups);
    }
    return groups;
}

std::vector<model::ProbeCell> planned_cells(const ProbePlan& plan) {
    std::vector<model::ProbeCell> cells;
    for (const auto& group : plan_groups(plan)) {
        for (const auto& pair : group.pairs) {
            model::ProbeCell cell;
            cell.src = plan.gpus[static_cast<std::size_t>(pair.src)];
            cell.dst = plan.gpus[static_cast<std::size_t>(pair.dst)];
            cell.size_bytes = group.size_bytes;
            cell.mode = group.mode;
            cells.push_back(cell);
        }
    }
    return cells;
}

}  // namespace peergate::engine
