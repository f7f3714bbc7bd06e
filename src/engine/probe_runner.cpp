// SPDX-License-Identifier: Apache-2.0
#include "engine/probe_runner.hpp"

#include "engine/probe_streams.hpp"
#include "engine/probe_transfer.hpp"

#include <fmt/format.h>

#include <limits>
#include <set>
#include <utility>

namespace peergate::engine {

namespace {

constexpr const char* kAfterWatchdog = "not run: the watchdog fired on an earlier cell";

// One ordered pair of a group while it runs.
struct Lane {
    PositionPair pair;
    model::ProbeCell cell;
    BufferId src = -1;
    BufferId dst = -1;
    BufferId flag = -1;  // handshake: the flag and what the waiter found
    bool active = true;  // false once it failed: the others of the group go on
    bool errored = false;
    bool skipped = false;
    double seconds = 0.0;
    int timed = 0;
};

// The copy time a cell has summed, for its mean rate over every round.
struct Timing {
    double seconds = 0.0;
    int timed = 0;
};

std::string mib(std::uint64_t bytes) {
    return fmt::format("{} MiB", bytes >> 20U);
}

class Runner {
public:
    Runner(CopyEngine& engine,
           const ProbePlan& plan,
           const ProbeProgress& progress,
           const SoakClock& clock)
        : engine_(engine),
          plan_(plan),
          progress_(progress),
          clock_(clock),
          total_(planned_cells(plan).size()),
          timings_(total_) {}

    ProbeRun run() {
        const auto start = now();
        do {
            run_round();
            ++round_;
        } while (another_round(start));
        return {std::move(cells_), round_, device_seconds_};
    }

private:
    std::chrono::steady_clock::time_point now() const {
        return clock_ ? clock_() : std::chrono::steady_clock::now();
    }

    void run_round() {
        next_cell_ = 0;
        moved_ = false;
        for (const auto& group : plan_groups(plan_)) {
            run_group(group);
        }
    }

    // Repeat numbers (round x repeats + repeat) seed the patterns and must stay an int.
    bool another_round(std::chrono::steady_clock::time_point start) const {
        return plan_.soak.count() > 0 && !aborted_ && !model::any_data_lost(cells_) && moved_ &&
               round_ < std::numeric_limits<int>::max() / plan_.repeats - 1 &&
               now() - start < plan_.soak;
    }

    void run_group(const CopyGroup& group) {
        if (aborted_ && round_ > 0) {
            return;  // what earlier rounds found stands
        }
        std::vector<Lane> lanes = make_lanes(group);
        if (aborted_) {
            for (auto& lane : lanes) {
                lane.active = false;
                lane.skipped = true;
                lane.cell.detail = kAfterWatchdog;
            }
        } else {
            for (auto& lane : lanes) {
                allocate(lane);
            }
            for (int repeat = 0; repeat < plan_.repeats && any_active(lanes) && !aborted_;
                 ++repeat) {
                run_repeat(lanes, repeat);
            }
            release(lanes);
        }
        for (auto& lane : lanes) {
            finish(lane);
        }
    }

    // A later round's lane starts from what the earlier rounds counted, so counts, timings
    // and the first bad offset add up and a cell keeps its worst status.
    std::vector<Lane> make_lanes(const CopyGroup& group) const {
        std::vector<Lane> lanes;
        for (const auto& pair : group.pairs) {
            Lane lane{.pair = pair};
            if (round_ > 0) {
                const std::size_t index = next_cell_ + lanes.size();
                lane.cell = cells_[index];
                lane.seconds = timings_[index].seconds;
                lane.timed = timings_[index].timed;
                lane.errored = lane.cell.status == model::CellStatus::error;
                lane.skipped = lane.cell.status == model::CellStatus::skipped;
            }
            lane.cell.src = plan_.gpus[static_cast<std::size_t>(pair.src)];
            lane.cell.dst = plan_.gpus[static_cast<std::size_t>(pair.dst)];
            lane.cell.size_bytes = group.size_bytes;
            lane.cell.mode = group.mode;
            lane.cell.path_kind = group.path;
            // An SM load crosses from the destination, through its mapping of the source.
            lane.cell.path = group.path == model::ProbePath::sm_load
                                 ? engine_.path(pair.dst, pair.src)
                                 : engine_.path(pair.src, pair.dst);
            lane.cell.verify = engine_.verify_site();
            lanes.push_back(std::move(lane));
        }
        return lanes;
    }

    static bool any_active(const std::vector<Lane>& lanes) {
        for (const auto& lane : lanes) {
            if (lane.active) {
                return true;
            }
        }
        return false;
    }

    // A path the engine cannot run here is skipped with its reason: never a pass.
    void allocate(Lane& lane) {
        if (auto why = engine_.unsupported(lane.cell.path_kind, lane.pair.src, lane.pair.dst)) {
            lane.active = false;
            lane.skipped = true;
            note(lane.cell, "not run: " + *why);
            return;
        }
        const auto bytes = static_cast<std::size_t>(lane.cell.size_bytes);
        auto src = engine_.allocate(lane.pair.src, bytes);
        auto dst = src ? engine_.allocate(lane.pair.dst, bytes) : src;
        if (src && dst) {
            lane.src = *src;
            lane.dst = *dst;
            allocate_flag(lane);
            return;
        }
        if (src) {
            engine_.release(*src);
        }
        const int gpu = src ? lane.cell.dst : lane.cell.src;
        lane.active = false;
        lane.skipped = true;
        note(lane.cell,
             fmt::format("could not allocate {} on GPU {}: {}",
                         mib(lane.cell.size_bytes),
                         gpu,
                         (src ? dst : src).error().message));
    }

    void allocate_flag(Lane& lane) {
        if (lane.cell.path_kind != model::ProbePath::handshake) {
            return;
        }
        auto flag = engine_.allocate(lane.pair.dst, kHandshakeFlagBytes);
        if (flag) {
            lane.flag = *flag;
            return;
        }
        lane.active = false;
        lane.skipped = true;
        note(lane.cell,
             fmt::format("could not allocate the handshake's flag on GPU {}: {}",
                         lane.cell.dst,
                         flag.error().message));
    }

    void release(std::vector<Lane>& lanes) {
        if (aborted_) {
            return;  // the engine must not be used after a watchdog timeout
        }
        for (auto& lane : lanes) {
            for (const BufferId buffer : {lane.src, lane.dst, lane.flag}) {
                if (buffer >= 0) {
                    engine_.release(buffer);
                }
            }
        }
    }

    void run_repeat(std::vector<Lane>& lanes, int repeat) {
        fill(lanes, repeat);
        wait_for_devices(lanes);
        copy(lanes, repeat);
        wait_for_copies(lanes);
        compare(lanes, repeat);
        lanes_repeats(lanes);
    }

    void lanes_repeats(std::vector<Lane>& lanes) {
        for (auto& lane : lanes) {
            if (lane.active) {
                ++lane.cell.repeats;
                moved_ = true;
            }
        }
    }

    std::uint32_t seed(const Lane& lane, int repeat) const {
        return pattern_seed(lane.cell.src,
                            lane.cell.dst,
                            lane.cell.size_bytes,
                            round_ * plan_.repeats + repeat,
                            lane.cell.mode,
                            lane.cell.path_kind);
    }

    static TransferEnds ends(const Lane& lane) {
        return {.pair = lane.pair,
                .path = lane.cell.path_kind,
                .src = lane.src,
                .dst = lane.dst,
                .flag = lane.flag};
    }

    void fill(std::vector<Lane>& lanes, int repeat) {
        for (auto& lane : lanes) {
            if (!lane.active || aborted_) {
                continue;
            }
            auto dst_stream = streams_.for_device(lane.pair.dst);
            auto src_stream = streams_.for_device(lane.pair.src);
            if (!dst_stream || !src_stream) {
                fail(lane, (dst_stream ? src_stream : dst_stream).error(), "stream creation");
                continue;
            }
            if (auto s = engine_.fill_sentinel(lane.dst, *dst_stream); !s) {
                fail(lane, s.error(), "sentinel fill");
            } else if (auto f = lane.flag < 0 ? s : engine_.fill_sentinel(lane.flag, *dst_stream);
                       !f) {
                fail(lane, f.error(), "flag reset");
            } else if (auto p = engine_.fill_pattern(lane.src, seed(lane, repeat), *src_stream);
                       !p) {
                fail(lane, p.error(), "pattern fill");
            }
        }
    }

    void wait_for_devices(std::vector<Lane>& lanes) {
        std::set<int> devices;
        for (const auto& lane : lanes) {
            if (lane.active) {
                devices.insert(lane.pair.src);
                devices.insert(lane.pair.dst);
            }
        }
        for (const int device : devices) {
            if (aborted_) {
                return;
            }
            auto synced = engine_.synchronize(streams_.device(device), plan_.timeout);
            for (auto& lane : lanes) {
                if (!synced && lane.active &&
                    (lane.pair.src == device || lane.pair.dst == device)) {
                    fail(lane, synced.error(), "fill synchronisation");
                }
            }
        }
    }

    // What a step of this lane's transfer is called in its cell's detail.
    static std::string step_name(const Lane& lane, const char* what) {
        const auto path = lane.cell.path_kind;
        const char* name = path == model::ProbePath::ce         ? "peer copy"
                           : path == model::ProbePath::sm_store ? "SM store"
                           : path == model::ProbePath::sm_load  ? "SM load"
                                                                : "handshake";
        return fmt::format("{}{}", name, what);
    }

    void copy(std::vector<Lane>& lanes, int repeat) {
        const auto budget = handshake_budget(plan_.timeout);
        for (auto& lane : lanes) {
            if (!lane.active || aborted_) {
                continue;
            }
            auto started =
                start_transfer(engine_, streams_, ends(lane), seed(lane, repeat), budget);
            if (!started) {
                fail(lane, started.error(), step_name(lane, ""));
            }
        }
    }

    // A group's lanes run at once: its device time for this repeat is its slowest lane's.
    void wait_for_copies(std::vector<Lane>& lanes) {
        double slowest = 0.0;
        for (auto& lane : lanes) {
            if (!lane.active || aborted_) {
                continue;
            }
            auto synced = finish_transfer(engine_, streams_, ends(lane), plan_.timeout);
            if (!synced) {
                fail(lane, synced.error(), step_name(lane, " synchronisation"));
            } else if (*synced && **synced > 0.0) {
                lane.seconds += **synced;
                ++lane.timed;
                slowest = std::max(slowest, **synced);
            }
        }
        device_seconds_ += slowest;
    }

    void compare(std::vector<Lane>& lanes, int repeat) {
        for (auto& lane : lanes) {
            if (!lane.active || aborted_) {
                continue;
            }
            auto found =
                check_transfer(engine_, streams_, ends(lane), seed(lane, repeat), plan_.timeout);
            if (!found) {
                fail(lane, found.error(), "verification");
                continue;
            }
            if (!found->flag_seen) {
                ++lane.cell.flags_lost;  // the payload was never vouched for: nothing to count
                continue;
            }
            const auto& counts = found->payload;
            lane.cell.dropped += counts.dropped;
            lane.cell.wrong += counts.wrong;
            if (!lane.cell.first_bad_offset && counts.first_bad_element) {
                lane.cell.first_bad_offset = *counts.first_bad_element * 4U;
            }
        }
    }

    void fail(Lane& lane, const util::Error& error, const std::string& step) {
        lane.active = false;
        lane.errored = true;
        if (error.code == util::ErrorCode::timeout) {
            aborted_ = true;
            note(lane.cell,
                 fmt::format("watchdog: {} did not finish within {} s ({})",
                             step,
                             std::chrono::duration<double>(plan_.timeout).count(),
                             error.message),
                 true);
            return;
        }
        note(lane.cell, fmt::format("{} failed: {}", step, error.message));
    }

    // A cell names the first trouble it met; the watchdog, which ends the run, names itself.
    void note(model::ProbeCell& cell, std::string text, bool overrides = false) const {
        if (cell.detail.empty() || overrides) {
            cell.detail = round_ > 0 ? fmt::format("round {}: {}", round_ + 1, text) : text;
        }
    }

    void finish(Lane& lane) {
        model::ProbeCell& cell = lane.cell;
        if (aborted_ && lane.active) {
            lane.errored = true;
            note(cell, "not finished: the watchdog fired in this group", true);
        }
        if (lane.timed > 0) {
            cell.gbps = static_cast<double>(cell.size_bytes) * lane.timed / lane.seconds / 1e9;
        }
        cell.status = cell.wrong > 0        ? model::CellStatus::corrupted
                      : cell.dropped > 0    ? model::CellStatus::dropped
                      : cell.flags_lost > 0 ? model::CellStatus::flag_lost
                      : lane.errored        ? model::CellStatus::error
                      : lane.skipped        ? model::CellStatus::skipped
                                            : model::CellStatus::ok;
        const std::size_t index = next_cell_++;
        timings_[index] = {lane.seconds, lane.timed};
        if (round_ == 0) {
            cells_.push_back(cell);
        } else {
            cells_[index] = cell;
        }
        if (progress_) {
            progress_(cells_[index], next_cell_, total_, round_);
        }
    }

    CopyEngine& engine_;
    const ProbePlan& plan_;
    const ProbeProgress& progress_;
    const SoakClock& clock_;
    std::size_t total_;
    std::vector<Timing> timings_;  // per cell, over the rounds
    std::size_t next_cell_ = 0;    // the next cell of this round to finish
    int round_ = 0;
    bool moved_ = false;  // a repeat ran in this round
    ProbeStreams streams_{engine_};
    std::vector<model::ProbeCell> cells_;
    bool aborted_ = false;
    double device_seconds_ = 0.0;  // the slowest lane of each repeat of each group, summed
};

}  // namespace

ProbeRun run_probe(CopyEngine& engine,
                   const ProbePlan& plan,
                   const ProbeProgress& progress,
                   const SoakClock& clock) {
    return Runner(engine, plan, progress, clock).run();
}

std::vector<model::ProbeCell> finish_abandoned_run(const ProbePlan& plan,
                                                   std::vector<model::ProbeCell> done,
                                                   std::size_t next,
                                                   const std::string& reason) {
    auto planned = planned_cells(plan);
    for (std::size_t i = next; i < planned.size(); ++i) {
        if (i < done.size() && i != next) {
            continue;  // an earlier round finished it
        }
        auto cell = i < done.size() ? done[i] : planned[i];
        cell.status = i == next ? model::CellStatus::error : model::CellStatus::skipped;
        cell.detail = i == next ? reason : kAfterWatchdog;
        if (i < done.size()) {
            done[i] = std::move(cell);
        } else {
            done.push_back(std::move(cell));
        }
    }
    return done;
}

}  // namespace peergate::engine
