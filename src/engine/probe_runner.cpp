// SPDX-License-Identifier: Apache-2.0
#include "engine/probe_runner.hpp"

#include <fmt/format.h>

#include <map>
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
    bool active = true;  // false once it failed: the others of the group go on
    bool errored = false;
    bool skipped = false;
    double seconds = 0.0;
    int timed = 0;
};

std::string mib(std::uint64_t bytes) {
    return fmt::format("{} MiB", bytes >> 20U);
}

class Runner {
public:
    Runner(CopyEngine& engine, const ProbePlan& plan, const ProbeProgress& progress)
        : engine_(engine), plan_(plan), progress_(progress), total_(planned_cells(plan).size()) {}

    std::vector<model::ProbeCell> run() {
        for (const auto& group : plan_groups(plan_)) {
            run_group(group);
        }
        return std::move(cells_);
    }

private:
    void run_group(const CopyGroup& group) {
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

    std::vector<Lane> make_lanes(const CopyGroup& group) const {
        std::vector<Lane> lanes;
        for (const auto& pair : group.pairs) {
            Lane lane{.pair = pair};
            lane.cell.src = plan_.gpus[static_cast<std::size_t>(pair.src)];
            lane.cell.dst = plan_.gpus[static_cast<std::size_t>(pair.dst)];
            lane.cell.size_bytes = group.size_bytes;
            lane.cell.mode = group.mode;
            lane.cell.path = engine_.path(pair.src, pair.dst);
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

    void allocate(Lane& lane) {
        const auto bytes = static_cast<std::size_t>(lane.cell.size_bytes);
        auto src = engine_.allocate(lane.pair.src, bytes);
        auto dst = src ? engine_.allocate(lane.pair.dst, bytes) : src;
        if (src && dst) {
            lane.src = *src;
            lane.dst = *dst;
            return;
        }
        if (src) {
            engine_.release(*src);
        }
        const int gpu = src ? lane.cell.dst : lane.cell.src;
        lane.active = false;
        lane.skipped = true;
        lane.cell.detail = fmt::format("could not allocate {} on GPU {}: {}",
                                       mib(lane.cell.size_bytes),
                                       gpu,
                                       (src ? dst : src).error().message);
    }

    void release(std::vector<Lane>& lanes) {
        if (aborted_) {
            return;  // the engine must not be used after a watchdog timeout
        }
        for (auto& lane : lanes) {
            if (lane.src >= 0) {
                engine_.release(lane.src);
            }
            if (lane.dst >= 0) {
                engine_.release(lane.dst);
            }
        }
    }

    void run_repeat(std::vector<Lane>& lanes, int repeat) {
        fill(lanes, repeat);
        wait_for_devices(lanes);
        copy(lanes);
        wait_for_copies(lanes);
        compare(lanes, repeat);
        lanes_repeats(lanes);
    }

    static void lanes_repeats(std::vector<Lane>& lanes) {
        for (auto& lane : lanes) {
            if (lane.active) {
                ++lane.cell.repeats;
            }
        }
    }

    std::uint32_t seed(const Lane& lane, int repeat) const {
        return pattern_seed(
            lane.cell.src, lane.cell.dst, lane.cell.size_bytes, repeat, lane.cell.mode);
    }

    void fill(std::vector<Lane>& lanes, int repeat) {
        for (auto& lane : lanes) {
            if (!lane.active || aborted_) {
                continue;
            }
            auto dst_stream = device_stream(lane.pair.dst);
            auto src_stream = device_stream(lane.pair.src);
            if (!dst_stream || !src_stream) {
                fail(lane, (dst_stream ? src_stream : dst_stream).error(), "stream creation");
                continue;
            }
            if (auto s = engine_.fill_sentinel(lane.dst, *dst_stream); !s) {
                fail(lane, s.error(), "sentinel fill");
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
            auto synced = engine_.synchronize(device_streams_.at(device), plan_.timeout);
            for (auto& lane : lanes) {
                if (!synced && lane.active &&
                    (lane.pair.src == device || lane.pair.dst == device)) {
                    fail(lane, synced.error(), "fill synchronisation");
                }
            }
        }
    }

    void copy(std::vector<Lane>& lanes) {
        for (auto& lane : lanes) {
            if (!lane.active || aborted_) {
                continue;
            }
            auto stream = pair_stream(lane.pair);
            if (!stream) {
                fail(lane, stream.error(), "stream creation");
                continue;
            }
            const CopyJob job{
                .kind = CopyKind::peer, .dst = lane.dst, .src = lane.src, .stream = *stream};
            if (auto copied = engine_.enqueue_copy(job); !copied) {
                fail(lane, copied.error(), "peer copy");
            }
        }
    }

    void wait_for_copies(std::vector<Lane>& lanes) {
        for (auto& lane : lanes) {
            if (!lane.active || aborted_) {
                continue;
            }
            auto synced = engine_.synchronize(pair_streams_.at({lane.pair.src, lane.pair.dst}),
                                              plan_.timeout);
            if (!synced) {
                fail(lane, synced.error(), "peer copy synchronisation");
            } else if (*synced && **synced > 0.0) {
                lane.seconds += **synced;
                ++lane.timed;
            }
        }
    }

    void compare(std::vector<Lane>& lanes, int repeat) {
        for (auto& lane : lanes) {
            if (!lane.active || aborted_) {
                continue;
            }
            auto counts = engine_.verify(
                lane.dst, seed(lane, repeat), device_streams_.at(lane.pair.dst), plan_.timeout);
            if (!counts) {
                fail(lane, counts.error(), "verification");
                continue;
            }
            lane.cell.dropped += counts->dropped;
            lane.cell.wrong += counts->wrong;
            if (!lane.cell.first_bad_offset && counts->first_bad_element) {
                lane.cell.first_bad_offset = *counts->first_bad_element * 4U;
            }
        }
    }

    util::Expected<StreamId> device_stream(int device) {
        if (auto it = device_streams_.find(device); it != device_streams_.end()) {
            return it->second;
        }
        auto stream = engine_.create_stream(device);
        if (stream) {
            device_streams_[device] = *stream;
        }
        return stream;
    }

    // Each ordered pair copies on its own stream of the source device.
    util::Expected<StreamId> pair_stream(PositionPair pair) {
        const auto key = std::make_pair(pair.src, pair.dst);
        if (auto it = pair_streams_.find(key); it != pair_streams_.end()) {
            return it->second;
        }
        auto stream = engine_.create_stream(pair.src);
        if (stream) {
            pair_streams_[key] = *stream;
        }
        return stream;
    }

    void fail(Lane& lane, const util::Error& error, const char* step) {
        lane.active = false;
        lane.errored = true;
        if (error.code == util::ErrorCode::timeout) {
            aborted_ = true;
            lane.cell.detail = fmt::format("watchdog: {} did not finish within {} s ({})",
                                           step,
                                           std::chrono::duration<double>(plan_.timeout).count(),
                                           error.message);
            return;
        }
        lane.cell.detail = fmt::format("{} failed: {}", step, error.message);
    }

    void finish(Lane& lane) {
        model::ProbeCell& cell = lane.cell;
        if (aborted_ && lane.active) {
            lane.errored = true;
            cell.detail = "not finished: the watchdog fired in this group";
        }
        if (lane.timed > 0) {
            cell.gbps = static_cast<double>(cell.size_bytes) * lane.timed / lane.seconds / 1e9;
        }
        cell.status = cell.wrong > 0     ? model::CellStatus::corrupted
                      : cell.dropped > 0 ? model::CellStatus::dropped
                      : lane.errored     ? model::CellStatus::error
                      : lane.skipped     ? model::CellStatus::skipped
                                         : model::CellStatus::ok;
        cells_.push_back(cell);
        if (progress_) {
            progress_(cells_.back(), cells_.size(), total_);
        }
    }

    CopyEngine& engine_;
    const ProbePlan& plan_;
    const ProbeProgress& progress_;
    std::size_t total_;
    std::map<int, StreamId> device_streams_;
    std::map<std::pair<int, int>, StreamId> pair_streams_;
    std::vector<model::ProbeCell> cells_;
    bool aborted_ = false;
};

}  // namespace

std::vector<model::ProbeCell> run_probe_cells(CopyEngine& engine,
                                              const ProbePlan& plan,
                                              const ProbeProgress& progress) {
    return Runner(engine, plan, progress).run();
}

std::vector<model::ProbeCell> finish_abandoned_run(const ProbePlan& plan,
                                                   std::vector<model::ProbeCell> done,
                                                   const std::string& reason) {
    auto planned = planned_cells(plan);
    const std::size_t first_unfinished = done.size();
    for (std::size_t i = first_unfinished; i < planned.size(); ++i) {
        auto cell = planned[i];
        const bool current = i == first_unfinished;
        cell.status = current ? model::CellStatus::error : model::CellStatus::skipped;
        cell.detail = current ? reason : kAfterWatchdog;
        done.push_back(std::move(cell));
    }
    return done;
}

}  // namespace peergate::engine
