// SPDX-License-Identifier: Apache-2.0
#include "engine/probe_verdict.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>

namespace peergate::engine {

namespace {

using model::CellStatus;
using model::PairVerdict;

double seconds(std::chrono::milliseconds duration) {
    return std::chrono::duration<double>(duration).count();
}

bool lost(const model::ProbeCell& cell) {
    return model::lost_data(cell);
}

// "serial mode, 4 MiB" for a copy cell; the path is named where it is not the copy engine.
std::string where(const model::ProbeCell& cell) {
    return fmt::format("{}{} mode, {} MiB",
                       cell.path_kind == model::ProbePath::ce
                           ? ""
                           : fmt::format("{}, ", model::to_string(cell.path_kind)),
                       model::to_string(cell.mode),
                       cell.size_bytes >> 20U);
}

std::string describe_loss(const model::ProbeCell& cell) {
    const std::uint64_t elements = cell.size_bytes / 4U * static_cast<std::uint64_t>(cell.repeats);
    if (cell.status == CellStatus::flag_lost) {
        return fmt::format(
            "{}: the flag never arrived in {} of {} repeats (the waiting kernel "
            "spun out its budget: the deadlock NCCL shows)",
            where(cell),
            cell.flags_lost,
            cell.repeats);
    }
    std::string what;
    if (cell.dropped > 0) {
        what = fmt::format("{} of {} elements dropped", cell.dropped, elements);
    }
    if (cell.wrong > 0) {
        what += fmt::format(
            "{}{} of {} elements corrupted", what.empty() ? "" : ", ", cell.wrong, elements);
    }
    return fmt::format("{}: {} (first bad offset {}, {} path)",
                       where(cell),
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
            return fmt::format("{}: {}", where(*cell), cell->detail);
        }
        if (verdict == PairVerdict::skipped && cell->status == CellStatus::skipped) {
            return fmt::format("{}: {}", where(*cell), cell->detail);
        }
    }
    if (cells.empty()) {
        return "no cell ran";
    }
    const bool staged = std::any_of(cells.begin(), cells.end(), [](const auto* c) {
        return c->path == model::CopyPath::staged;
    });
    const auto applicable = std::count_if(
        cells.begin(), cells.end(), [](const auto* c) { return !not_applicable(*c); });
    return fmt::format("intact: {} cells, {} repeats each{}",
                       applicable,
                       cells.front()->repeats,
                       staged ? "; the driver refused peer access, so only the staged path "
                                "(through host memory) was tested"
                              : ", direct path");
}

std::vector<model::ProbePathVerdict> path_verdicts(
    const std::vector<const model::ProbeCell*>& cells, const std::vector<model::ProbePath>& paths) {
    std::vector<model::ProbePathVerdict> verdicts;
    for (const auto path : paths) {
        std::vector<const model::ProbeCell*> of_path;
        std::copy_if(cells.begin(), cells.end(), std::back_inserter(of_path), [&](const auto* c) {
            return c->path_kind == path;
        });
        verdicts.push_back({path, pair_verdict(of_path)});
    }
    return verdicts;
}

model::ProbePair make_pair(int src,
                           int dst,
                           const std::vector<model::ProbeCell>& cells,
                           const ProbePlan& plan) {
    const auto& modes = plan.modes;
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
    pair.paths = path_verdicts(all, plan.paths);
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
        for (const auto& p : pair.paths) {
            if (p.verdict == verdict && pair.paths.size() > 1) {
                modes.push_back(fmt::format("{} path", model::to_string(p.path)));
            }
        }
        names.push_back(
            fmt::format("GPU {} -> GPU {} ({})", pair.src, pair.dst, fmt::join(modes, ", ")));
    }
    return fmt::format("{}", fmt::join(names, "; "));
}

// Per path, the pairs on which no cell of it applied (each was skipped for want of a peer mapping).
std::vector<model::ProbePathNotApplicable> find_not_applicable(const model::ProbeResult& r) {
    std::vector<model::ProbePathNotApplicable> found;
    for (const auto path : r.paths) {
        model::ProbePathNotApplicable entry{.path = path};
        for (const auto& pair : r.pairs) {
            bool any = false;
            bool all = true;
            for (const auto& c : r.cells) {
                if (c.src == pair.src && c.dst == pair.dst && c.path_kind == path) {
                    any = true;
                    all = all && not_applicable(c);
                }
            }
            if (any && all) {
                entry.pairs.emplace_back(pair.src, pair.dst);
            }
        }
        if (!entry.pairs.empty()) {
            found.push_back(std::move(entry));
        }
    }
    return found;
}

// "; sm-store, sm-load, handshake not applicable: the driver refused peer access", naming the
// pairs where not all were concerned; "" where every path applied to every pair.
std::string not_applicable_said(const model::ProbeResult& r) {
    const auto& entries = r.paths_not_applicable;
    std::string said;
    for (std::size_t i = 0; i < entries.size();) {
        const auto& first = entries[i];
        std::vector<model::ProbePath> paths;
        for (; i < entries.size() && entries[i].why == first.why && entries[i].pairs == first.pairs;
             ++i) {
            paths.push_back(entries[i].path);
        }
        said += fmt::format(
            "; {} not applicable{}: {}",
            model::path_names(paths),
            first.pairs.size() == r.pairs.size() ? "" : " to " + pair_names(first.pairs),
            model::describe(first.why));
    }
    return said;
}

// The paths some cell of the run applied to: a path not applicable to every pair tested nothing.
std::vector<model::ProbePath> tested_paths(const model::ProbeResult& result) {
    std::vector<model::ProbePath> paths;
    for (const auto path : result.paths) {
        const bool tested =
            std::any_of(result.cells.begin(), result.cells.end(), [&](const auto& c) {
                return c.path_kind == path && !not_applicable(c);
            });
        if (tested) {
            paths.push_back(path);
        }
    }
    return paths;
}

// " on the ce, sm-store and handshake paths": the paths tested; "" for copies alone, as before
// paths existed.
std::string paths_said(const model::ProbeResult& result) {
    if (result.paths == std::vector<model::ProbePath>{model::ProbePath::ce}) {
        return "";
    }
    const auto tested = tested_paths(result);
    return fmt::format(
        " on the {} path{}", model::path_names(tested), tested.size() > 1 ? "s" : "");
}

// What a pass found, in data: whether the gate may trust it is held up to its rules elsewhere
// (engine/probe_trust.hpp), since the gate and not the probe decides what it needs.
std::string pass_reason(const ProbePlan& plan, const model::ProbeResult& result, int rounds) {
    const auto cells = std::count_if(
        result.cells.begin(), result.cells.end(), [](const auto& c) { return !not_applicable(c); });
    std::string reason =
        fmt::format("every ordered pair of GPUs {} moved its data intact{} ({} cells{})",
                    fmt::join(plan.gpus, ","),
                    paths_said(result),
                    cells,
                    plan.soak.count() > 0
                        ? fmt::format(", {} rounds of a {} s soak", rounds, seconds(plan.soak))
                        : "");
    reason += not_applicable_said(result);
    if (plan.quick) {
        reason +=
            "; a quick check: one 1 MiB transfer per pair and path, all at once (a soak loads "
            "the bus for longer)";
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

// The outcome, its reason (with the paths that did not apply) and, on a loss, the remedy.
void decide_outcome(const ProbePlan& plan, model::ProbeResult& result, int rounds) {
    auto any_pair = [&](PairVerdict v) {
        return std::any_of(result.pairs.begin(), result.pairs.end(), [v](const auto& p) {
            return p.verdict == v;
        });
    };
    if (any_pair(PairVerdict::data_lost)) {
        result.outcome = model::ProbeOutcome::fail;
        result.reason = loss_reason(plan, result, rounds) + not_applicable_said(result);
        result.remedy = remedy_for(result);
    } else if (any_pair(PairVerdict::error) || any_pair(PairVerdict::skipped) ||
               result.pairs.empty()) {
        result.outcome = model::ProbeOutcome::inconclusive;
        const auto errors = failing_pairs(result, PairVerdict::error);
        result.reason =
            (!errors.empty() ? "errors on " + errors
                             : "not tested: " + failing_pairs(result, PairVerdict::skipped)) +
            not_applicable_said(result);
    } else {
        result.outcome = model::ProbeOutcome::pass;
        result.reason = pass_reason(plan, result, rounds);
    }
}

}  // namespace

const char* const kSmPathRemedy =
    "Kernels storing or loading through the peer mapping, or the flag handshake between "
    "resident kernels, lost data: do not let NCCL, vLLM or SGLang use P2P between these GPUs "
    "(NCCL_P2P_DISABLE=1, or NCCL_P2P_LEVEL=LOC; vLLM --disable-custom-all-reduce; SGLang "
    "--disable-custom-all-reduce). Look for IOMMU faults with `dmesg | grep -i -E "
    "'DMAR|AMD-Vi'`; in a VM, the peer aperture may be mirrored. Then boot with iommu=pt "
    "(or intel_iommu=off / amd_iommu=off), or disable ACS redirection on the switches between "
    "the GPUs, then run `peergate probe` again (every mode on every path).";

const char* const kDataLossRemedy =
    "Do not set GGML_CUDA_P2P for these GPUs, and unset it if it is set: llama.cpp tests it "
    "for presence, so GGML_CUDA_P2P=0 turns peer access ON. Look for IOMMU faults with "
    "`dmesg | grep -i -E 'DMAR|AMD-Vi'`. Then boot with iommu=pt (or intel_iommu=off / "
    "amd_iommu=off) and run `peergate probe` again (every mode on every path).";

std::string pair_names(const std::vector<std::pair<int, int>>& pairs) {
    std::vector<std::string> names;
    for (const auto& [src, dst] : pairs) {
        names.push_back(fmt::format("GPU {} -> GPU {}", src, dst));
    }
    return fmt::format("{}", fmt::join(names, ", "));
}

bool not_applicable(const model::ProbeCell& cell) {
    return cell.status == CellStatus::skipped && cell.path_kind != model::ProbePath::ce &&
           cell.path == model::CopyPath::staged;
}

PairVerdict pair_verdict(const std::vector<const model::ProbeCell*>& all) {
    // An SM path where the driver refused the peer mapping moves nothing for any engine: its
    // skipped cells leave the pair's verdict to the copies (staged), and the verdict cache
    // vouches for no path on such a pair (docs/probe.md, "Paths").
    std::vector<const model::ProbeCell*> cells;
    std::copy_if(all.begin(), all.end(), std::back_inserter(cells), [&](const auto* c) {
        return !not_applicable(*c) || std::all_of(all.begin(), all.end(), [](const auto* o) {
            return not_applicable(*o);
        });
    });
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

std::string remedy_for(const model::ProbeResult& result) {
    bool copies_lost = false;
    for (const auto& pair : result.pairs) {
        for (const auto& p : pair.paths) {
            copies_lost = copies_lost ||
                          (p.path == model::ProbePath::ce && p.verdict == PairVerdict::data_lost);
        }
    }
    if (copies_lost || result.paths == std::vector<model::ProbePath>{model::ProbePath::ce}) {
        return kDataLossRemedy;
    }
    return kSmPathRemedy;
}

model::ProbeResult judge_probe(const ProbePlan& plan,
                               std::vector<model::ProbeCell> cells,
                               int rounds) {
    model::ProbeResult result{
        .gpus = plan.gpus, .modes = plan.modes, .paths = plan.paths, .cells = std::move(cells)};
    result.quick = plan.quick;
    result.rounds = rounds;
    if (plan.soak.count() > 0) {
        result.soak_s = seconds(plan.soak);
    }
    for (const int src : plan.gpus) {
        for (const int dst : plan.gpus) {
            if (src != dst) {
                result.pairs.push_back(make_pair(src, dst, result.cells, plan));
                result.pairs.back().rounds = rounds;
                result.pairs.back().soak_s = result.soak_s;
            }
        }
    }
    result.paths_not_applicable = find_not_applicable(result);
    decide_outcome(plan, result, rounds);
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
