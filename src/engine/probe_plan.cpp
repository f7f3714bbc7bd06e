// SPDX-License-Identifier: Apache-2.0
#include "engine/probe_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
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

void add_mode_groups(const ProbePlan& plan,
                     model::ProbeMode mode,
                     model::ProbePath path,
                     std::vector<CopyGroup>& out) {
    const int count = static_cast<int>(plan.gpus.size());
    switch (mode) {
        case model::ProbeMode::serial:
            for (const auto& pair : ordered_pairs(count)) {
                for (const auto size : plan.sizes_bytes) {
                    out.push_back({mode, path, size, {pair}});
                }
            }
            break;
        case model::ProbeMode::bidirectional:
            for (int a = 0; a < count; ++a) {
                for (int b = a + 1; b < count; ++b) {
                    for (const auto size : plan.sizes_bytes) {
                        out.push_back({mode, path, size, {{a, b}, {b, a}}});
                    }
                }
            }
            break;
        case model::ProbeMode::concurrent:
            for (const auto size : plan.sizes_bytes) {
                out.push_back({mode, path, size, ordered_pairs(count)});
            }
            break;
    }
}

bool listed_twice(const std::vector<model::ProbePath>& paths) {
    return std::set<model::ProbePath>(paths.begin(), paths.end()).size() != paths.size();
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
    if (request.paths.empty() || listed_twice(request.paths)) {
        return usage("--path: give each path once, at least one");
    }
    ProbePlan plan{.gpus = request.gpus,
                   .sizes_bytes = {},
                   .repeats = static_cast<int>(request.repeats),
                   .modes = request.modes,
                   .timeout = request.timeout,
                   .soak = request.soak,
                   .paths = request.paths,
                   .quick = request.quick};
    for (const auto size : request.sizes_mib) {
        plan.sizes_bytes.push_back(static_cast<std::uint64_t>(size) << 20U);
    }
    return plan;
}

ProbeRequest quick_request(std::chrono::milliseconds timeout) {
    return ProbeRequest{
        .gpus = {},
        .sizes_mib = {1},
        .repeats = 1,
        .modes = {model::ProbeMode::concurrent},
        .timeout = timeout,
        .soak = std::chrono::milliseconds{0},
        .paths = {std::begin(model::kAllProbePaths), std::end(model::kAllProbePaths)},
        .quick = true};
}

std::chrono::nanoseconds handshake_budget(std::chrono::milliseconds timeout) {
    const auto quarter = std::chrono::duration_cast<std::chrono::nanoseconds>(timeout) / 4;
    return std::clamp<std::chrono::nanoseconds>(
        quarter, std::chrono::microseconds(100), std::chrono::seconds(2));
}

std::vector<CopyGroup> plan_groups(const ProbePlan& plan) {
    std::vector<CopyGroup> groups;
    for (const auto mode : plan.modes) {
        for (const auto path : plan.paths) {
            add_mode_groups(plan, mode, path, groups);
        }
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
            cell.path_kind = group.path;
            cells.push_back(cell);
        }
    }
    return cells;
}

}  // namespace peergate::engine
