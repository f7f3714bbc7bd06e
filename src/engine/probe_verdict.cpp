// SPDX-License-Identifier: Apache-2.0
#include "engine/probe_verdict.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace peergate::engine {

namespace {

using model::CellStatus;
using model::PairVerdict;

double seconds(std::chrono::milliseconds duration) {
    return std::chrono::duration<double>(duration).count();
}

bool lost(const model::ProbeCell& cell) {
    return cell.status == CellStatus::dropped || cell.status == CellStatus::corrupted;
}

std::string describe_loss(const model::ProbeCell& cell) {
    const std::uint64_t elements = cell.size_bytes / 4U * static_cast<std::uint64_t>(cell.repeats);
    std::string what;
    if (cell.dropped > 0) {
        what = fmt::format("{} of {} elements dropped", cell.dropped, elements);
    }
    if (cell.wrong > 0) {
        what += fmt::format(
            "{}{} of {} elements corrupted", what.empty() ? "" : ", ", cell.wrong, elements);
    }
    return fmt::format("{} mode, {} MiB: {} (first bad offset {}, {} path)",
                       model::to_string(cell.mode),
                       cell.size_bytes >> 20U,
                       what,
                       cell.first_bad_offset.value_or(0),
                       model::to_string(cell.path));
}

std::string pair_detail(PairVerdict verdict, const std::vector<const model::ProbeCell*>& cells) {
    for (const auto* cell : cells) {
        if (verdict == PairVerdict::data_lost && lost(*cell)) {
            return "data lost in " + describe_loss(*cell);
        }
        if (verdict == PairVerdict::error && cell->status == CellStatus::error) {
            return fmt::format("{} mode, {} MiB: {}",
                               model::to_string(cell->mode),
                               cell->size_bytes >> 20U,
                               cell->detail);
        }
        if (verdict == PairVerdict::skipped && cell->status == CellStatus::skipped) {
            return fmt::format("{} mode, {} MiB: {}",
                               model::to_string(cell->mode),
                               cell->size_bytes >> 20U,
                               cell->detail);
        }
    }
    if (cells.empty()) {
        return "no cell ran";
    }
    const bool staged = std::any_of(cells.begin(), cells.end(), [](const auto* c) {
        return c->path == model::CopyPath::staged;
    });
    return fmt::format("intact: {} cells, {} repeats each{}",
                       cells.size(),
                       cells.front()->repeats,
                       staged ? "; the driver refused peer access, so only the staged path "
                                "(through host memory) was tested"
                              : ", direct path");
}

model::ProbePair make_pair(int src,
                           int dst,
                           const std::vector<model::ProbeCell>& cells,
                           const std::vector<model::ProbeMode>& modes) {
    model::ProbePair pair{.src = src, .dst = dst};
    std::vector<const model::ProbeCell*> all;
    for (const auto mode : modes) {
        std::vector<const model::ProbeCell*> of_mode;
        for (const auto& cell : cells) {
            if (cell.src == src && cell.dst == dst && cell.mode == mode) {
                of_mode.push_back(&cell);
            }
        }
        pair.modes.push_back({mode, pair_verdict(of_mode)});
        all.insert(all.end(), of_mode.begin(), of_mode.end());
    }
    pair.verdict = pair_verdict(all);
    pair.detail = pair_detail(pair.verdict, all);
    return pair;
}

std::string failing_pairs(const model::ProbeResult& result, PairVerdict verdict) {
    std::vector<std::string> names;
    for (const auto& pair : result.pairs) {
        if (pair.verdict != verdict) {
            continue;
        }
        std::vector<std::string> modes;
        for (const auto& m : pair.modes) {
            if (m.verdict == verdict) {
                modes.emplace_back(model::to_string(m.mode));
            }
        }
        names.push_back(
            fmt::format("GPU {} -> GPU {} ({})", pair.src, pair.dst, fmt::join(modes, ", ")));
    }
    return fmt::format("{}", fmt::join(names, "; "));
}

// A pass without the concurrent mode copied one pair at a time, and the loss it looks for is
// load-dependent: the reason says so, since a bare "intact" would read as a clean bill.
std::string pass_reason(const ProbePlan& plan, std::size_t cells, int rounds) {
    std::string reason =
        fmt::format("every ordered pair of GPUs {} moved its data intact ({} cells{})",
                    fmt::join(plan.gpus, ","),
                    cells,
                    plan.soak.count() > 0
                        ? fmt::format(", {} rounds of a {} s soak", rounds, seconds(plan.soak))
                        : "");
    const bool loaded =
        std::find(plan.modes.begin(), plan.modes.end(), model::ProbeMode::concurrent) !=
        plan.modes.end();
    if (!loaded) {
        reason +=
            ", but not under load: the loss is load-dependent, so run --mode all (or "
            "concurrent) before trusting PCIe P2P; the gate trusts only a concurrent-mode pass";
    }
    return reason;
}

// A round that loses data ends a soak, so the loss began in the last round.
std::string loss_reason(const ProbePlan& plan, const model::ProbeResult& result, int rounds) {
    std::string reason = "data lost: " + failing_pairs(result, PairVerdict::data_lost);
    if (plan.soak.count() > 0) {
        reason += fmt::format(" (in round {} of a {} s soak{})",
                              rounds,
                              seconds(plan.soak),
                              rounds > 1 ? "; the rounds before it were intact" : "");
    }
    return reason;
}

}  // namespace

const char* const kDataLossRemedy =
    "Do not set GGML_CUDA_P2P for these GPUs, and unset it if it is set: llama.cpp tests it "
    "for presence, so GGML_CUDA_P2P=0 turns peer access ON. Look for IOMMU faults with "
    "`dmesg | grep -i -E 'DMAR|AMD-Vi'`. Remedy: boot with iommu=pt (or intel_iommu=off / "
    "amd_iommu=off), then run `peergate probe --mode all` again.";

PairVerdict pair_verdict(const std::vector<const model::ProbeCell*>& cells) {
    auto any = [&](auto predicate) { return std::any_of(cells.begin(), cells.end(), predicate); };
    if (cells.empty()) {
        return PairVerdict::skipped;
    }
    if (any([](const auto* c) { return lost(*c); })) {
        return PairVerdict::data_lost;
    }
    if (any([](const auto* c) { return c->status == CellStatus::error; })) {
        return PairVerdict::error;
    }
    if (any([](const auto* c) { return c->status == CellStatus::skipped; })) {
        return PairVerdict::skipped;
    }
    return PairVerdict::ok;
}

model::ProbeResult judge_probe(const ProbePlan& plan,
                               std::vector<model::ProbeCell> cells,
                               int rounds) {
    model::ProbeResult result{.gpus = plan.gpus, .modes = plan.modes, .cells = std::move(cells)};
    result.rounds = rounds;
    if (plan.soak.count() > 0) {
        result.soak_s = seconds(plan.soak);
    }
    for (const int src : plan.gpus) {
        for (const int dst : plan.gpus) {
            if (src != dst) {
                result.pairs.push_back(make_pair(src, dst, result.cells, plan.modes));
                result.pairs.back().rounds = rounds;
                result.pairs.back().soak_s = result.soak_s;
            }
        }
    }
    auto any_pair = [&](PairVerdict v) {
        return std::any_of(result.pairs.begin(), result.pairs.end(), [v](const auto& p) {
            return p.verdict == v;
        });
    };
    if (any_pair(PairVerdict::data_lost)) {
        result.outcome = model::ProbeOutcome::fail;
        result.reason = loss_reason(plan, result, rounds);
        result.remedy = kDataLossRemedy;
    } else if (any_pair(PairVerdict::error) || any_pair(PairVerdict::skipped) ||
               result.pairs.empty()) {
        result.outcome = model::ProbeOutcome::inconclusive;
        const auto errors = failing_pairs(result, PairVerdict::error);
        result.reason = !errors.empty()
                            ? "errors on " + errors
                            : "not tested: " + failing_pairs(result, PairVerdict::skipped);
    } else {
        result.outcome = model::ProbeOutcome::pass;
        result.reason = pass_reason(plan, result.cells.size(), rounds);
    }
    return result;
}

model::ProbeResult cannot_run(std::vector<int> gpus, std::string reason) {
    return model::ProbeResult{.outcome = model::ProbeOutcome::inconclusive,
                              .reason = std::move(reason),
                              .gpus = std::move(gpus)};
}

int exit_status(const model::ProbeResult& result) {
    switch (result.outcome) {
        case model::ProbeOutcome::pass:
            return 0;
        case model::ProbeOutcome::fail:
            return 1;
        case model::ProbeOutcome::inconclusive:
            return 2;
    }
    return 2;
}

}  // namespace peergate::engine
