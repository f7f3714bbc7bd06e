// SPDX-License-Identifier: Apache-2.0
// Driver calls cannot be cancelled: a hung GPU or driver blocks inside them forever. So
// the engine is opened and used on a worker thread, every engine call is watched, and a
// call that runs past its limit makes the caller abandon the worker (never join it), the
// same way the NVML tier's watchdog does. Nothing is locked across a driver call.
#pragma once

#include "engine/copy_engine.hpp"
#include "util/expected.hpp"

#include <chrono>
#include <functional>
#include <memory>
#include <string>

namespace peergate::sources::cuda {

using EngineOpener = std::function<util::Expected<std::unique_ptr<engine::CopyEngine>>()>;
using EngineWork = std::function<void(engine::CopyEngine&)>;

struct WatchOutcome {
    bool opened = false;    // the engine opened (else open_error says why)
    bool finished = false;  // the work returned; false: abandoned
    std::string open_error;
    std::string abandoned;  // which call hung, and for how long
};

// Opens an engine with `open` and runs `work` over it on a worker thread. A single call
// (opening included) that takes longer than `limit` abandons the worker. `work` must
// publish its results through state it shares with the caller (e.g. a shared_ptr).
WatchOutcome run_watched(EngineOpener open, EngineWork work, std::chrono::milliseconds limit);

// The same for work that is not an engine call (opening the driver, listing devices):
// true when `work` finished within `limit`.
bool run_within(const std::function<void()>& work, std::chrono::milliseconds limit);

}  // namespace peergate::sources::cuda
