// SPDX-License-Identifier: Apache-2.0
#include "sim/nvml/sim_nvml_state.hpp"

#include <chrono>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace peergate::sim::nvml {

namespace {

// One per loaded copy of the library. A machine replaced by a later init (another
// PEERGATE_SIM_MACHINE in the same process) is retired, not freed, because a thread
// abandoned inside the driver may still hold a reference to it.
struct State {
    std::mutex mutex;
    std::unique_ptr<SimMachine> machine;
    std::string path;
    std::string chosen;  // sim_use_machine's path, over PEERGATE_SIM_MACHINE
    std::vector<std::unique_ptr<SimMachine>> retired;
    int inits = 0;     // sessions open now
    int sessions = 0;  // sessions ever opened: the simulated clock of nvlink_errors growth
    // The first successful nvmlInit: the simulated clock of the traffic counters.
    std::optional<std::chrono::steady_clock::time_point> started;
};

// Never destroyed: a thread abandoned inside the driver (a "hang" fault) still refers to
// the machine when the process exits. The library is linked -z nodelete, so the pointer
// stays reachable and leak checkers see no leak.
State& state() {
    static auto* instance = new State();  // NOLINT(cppcoreguidelines-owning-memory)
    return *instance;
}

// "nvmlDeviceGetPciInfo_v3" -> "nvmlDeviceGetPciInfo": a fault may name either form.
std::string_view unversioned(std::string_view name) {
    const auto at = name.rfind("_v");
    return at == std::string_view::npos ? name : name.substr(0, at);
}

// The machine in force, read under the lock (a later init may replace it).
const SimMachine& current_machine() {
    const std::lock_guard lock(state().mutex);
    return *state().machine;
}

[[noreturn]] void hang_forever() {
    // Publish what this thread has read so far (a release on the state mutex): the exit
    // fence below acquires it, so exit-time destructors are ordered after those reads.
    { const std::lock_guard lock(state().mutex); }
    for (;;) {
        std::this_thread::sleep_for(std::chrono::hours(1));
    }
}

FaultAnswer fault_answer(const SimMachine& machine, std::string_view entry_point) {
    for (const auto& fault : machine.file.faults) {
        const bool matches = fault.call.empty() || fault.call == entry_point ||
                             fault.call == unversioned(entry_point);
        if (fault.layer != "nvml" || !matches) {
            continue;
        }
        if (fault.effect == "hang") {
            hang_forever();
        }
        if (fault.effect == "fail") {
            return FaultAnswer{
                true,
                fault.code != 0 ? static_cast<nvmlReturn_t>(fault.code) : NVML_ERROR_UNKNOWN,
                false};
        }
        if (fault.effect == "unknown" && unversioned(entry_point) == "nvmlDeviceGetP2PStatus") {
            return FaultAnswer{false, NVML_SUCCESS, true};
        }
    }
    return {};
}

// Constructed after the first machine is parsed, so destroyed before every static that
// existed by then (the machine schema's tables): its lock orders their destruction after
// each parse another thread made under the lock. A function-local static first built by a
// later parse would be destroyed before it, so the parser keeps none with a destructor.
struct ExitFence {
    ExitFence() = default;
    ExitFence(const ExitFence&) = delete;
    ExitFence& operator=(const ExitFence&) = delete;

    ~ExitFence() { const std::lock_guard lock(state().mutex); }
};

}  // namespace

void sim_use_machine(const char* path) {
    const std::lock_guard lock(state().mutex);
    state().chosen = path != nullptr ? path : "";
}

nvmlReturn_t sim_init(const char* entry_point) {
    State& s = state();
    {
        const std::lock_guard lock(s.mutex);
        const char* env = std::getenv("PEERGATE_SIM_MACHINE");  // NOLINT(concurrency-mt-unsafe)
        const std::string path = !s.chosen.empty() ? s.chosen : env != nullptr ? env : "";
        if (s.machine == nullptr || path != s.path) {
            auto file = snapshot::load_machine(path);
            if (!file) {
                return NVML_ERROR_DRIVER_NOT_LOADED;  // no machine: as if no driver ran
            }
            if (s.machine != nullptr) {
                s.retired.push_back(std::move(s.machine));
            }
            s.machine = std::make_unique<SimMachine>(derive_machine(std::move(*file)));
            s.path = path;
        }
    }
    static const ExitFence fence;
    if (snapshot::driver_mismatch(current_machine().file)) {
        return NVML_ERROR_LIB_RM_VERSION_MISMATCH;  // the running module is another version
    }
    const auto answer = fault_answer(current_machine(), entry_point);  // may hang: no lock held
    if (answer.fail) {
        return answer.code;
    }
    const std::lock_guard lock(s.mutex);
    ++s.inits;
    ++s.sessions;
    if (!s.started) {
        s.started = std::chrono::steady_clock::now();
    }
    return NVML_SUCCESS;
}

nvmlReturn_t sim_shutdown() {
    State& s = state();
    {
        const std::lock_guard lock(s.mutex);
        if (s.inits == 0) {
            return NVML_ERROR_UNINITIALIZED;
        }
    }
    if (const auto answer = fault_answer(current_machine(), "nvmlShutdown"); answer.fail) {
        return answer.code;
    }
    const std::lock_guard lock(s.mutex);
    --s.inits;
    return NVML_SUCCESS;
}

FaultAnswer enter(const char* entry_point) {
    State& s = state();
    {
        const std::lock_guard lock(s.mutex);
        if (s.inits == 0) {
            return FaultAnswer{true, NVML_ERROR_UNINITIALIZED, false};
        }
    }
    return fault_answer(current_machine(), entry_point);
}

int sessions_opened() {
    const std::lock_guard lock(state().mutex);
    return state().sessions;
}

double seconds_running() {
    const std::lock_guard lock(state().mutex);
    if (!state().started) {
        return 0.0;
    }
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - *state().started)
        .count();
}

const SimMachine& machine() {
    return current_machine();
}

int position_of(nvmlDevice_t device) {
    const auto& gpus = machine().gpus;
    for (std::size_t p = 0; p < gpus.size(); ++p) {
        if (handle_of(p) == device) {
            return static_cast<int>(p);
        }
    }
    return -1;
}

nvmlDevice_t handle_of(std::size_t position) {
    // Any stable non-null pointer works; the GPU's own entry is one.
    const auto& gpu = machine().gpus[position];
    return reinterpret_cast<nvmlDevice_t>(const_cast<SimGpu*>(&gpu));  // NOLINT: opaque handle
}

}  // namespace peergate::sim::nvml
