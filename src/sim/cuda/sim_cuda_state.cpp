// SPDX-License-Identifier: Apache-2.0
#include "sim/cuda/sim_cuda_state.hpp"

#include "sim/machine/cuda_visible.hpp"

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace peergate::sim::cuda {

namespace {

// Every state this library made, the one in force and the machine a program named. Never
// destroyed: a hung worker may still hold a state (a "hang" fault), and a thread may still
// use one that a cuInit naming another machine replaced.
struct Registry {
    std::mutex mutex;
    std::string chosen;  // use_machine's path, over PEERGATE_SIM_MACHINE
    std::vector<std::unique_ptr<State>> states;
    std::atomic<State*> current{nullptr};
};

Registry& registry() {
    static Registry* instance = [] {
        auto* made = new Registry();  // NOLINT(cppcoreguidelines-owning-memory): never freed
        made->states.push_back(std::make_unique<State>());
        made->current.store(made->states.back().get());
        return made;
    }();
    return *instance;
}

void install(State& s, const std::string& path, snapshot::MachineFile machine) {
    s.machine = std::move(machine);
    s.machine_path = path;
    for (std::size_t p = 0; p < s.machine.gpus.size(); ++p) {
        s.contexts.push_back(std::make_unique<CUctx_st>());
        s.contexts.back()->device = static_cast<int>(p);
    }
    s.allocated_bytes.assign(s.machine.gpus.size(), 0);
    s.initialised = true;
}

}  // namespace

State& state() {
    return *registry().current.load(std::memory_order_acquire);
}

void use_machine(const char* path) {
    const std::lock_guard lock(registry().mutex);
    registry().chosen = path != nullptr ? path : "";
}

std::string wanted_machine() {
    {
        const std::lock_guard lock(registry().mutex);
        if (!registry().chosen.empty()) {
            return registry().chosen;
        }
    }
    const char* path = std::getenv("PEERGATE_SIM_MACHINE");  // NOLINT: a driver stand-in
    return path != nullptr ? path : "";
}

void install_machine(const std::string& path, snapshot::MachineFile machine) {
    Registry& r = registry();
    const std::lock_guard registry_lock(r.mutex);
    State* current = r.current.load(std::memory_order_acquire);
    {
        const std::lock_guard lock(current->mutex);
        if (!current->initialised) {
            install(*current, path, std::move(machine));
            return;
        }
        if (current->machine_path == path) {
            return;  // another thread's cuInit installed it meanwhile
        }
    }
    r.states.push_back(std::make_unique<State>());
    install(*r.states.back(), path, std::move(machine));
    r.current.store(r.states.back().get(), std::memory_order_release);
}

CUctx_st*& current_context() {
    thread_local CUctx_st* context = nullptr;
    return context;
}

DeviceRange device_range(State& s, CUdeviceptr address, std::size_t bytes) {
    auto it = s.allocations.upper_bound(address);
    if (it == s.allocations.begin()) {
        return {};
    }
    --it;
    Allocation& a = it->second;
    const CUdeviceptr offset = address - it->first;
    if (offset > a.bytes || bytes > a.bytes - offset) {
        return {};
    }
    return {.allocation = &a, .offset = static_cast<std::size_t>(offset), .bytes = bytes};
}

int gpu_index(const State& s, int device) {
    return s.machine.gpus.at(static_cast<std::size_t>(device)).index;
}

std::optional<snapshot::MachineFault> cuda_fault(const State& s,
                                                 const char* call,
                                                 int device,
                                                 std::uint64_t bytes) {
    for (const auto& fault : s.machine.faults) {
        if (fault.layer != "cuda" || (!fault.call.empty() && fault.call != call)) {
            continue;
        }
        if (fault.src >= 0 && (device < 0 || gpu_index(s, device) != fault.src)) {
            continue;
        }
        if (bytes < fault.min_bytes) {
            continue;
        }
        return fault;
    }
    return std::nullopt;
}

CUresult fail_or_hang(const snapshot::MachineFault& fault) {
    if (fault.effect == "hang") {
        // A driver that never answers. Nothing is touched after this point.
        while (true) {
            std::this_thread::sleep_for(std::chrono::hours(1));
        }
    }
    return fault.code != 0 ? fault.code : CUDA_ERROR_UNKNOWN;
}

double copy_time_us(const State& s, int src, int dst, std::size_t bytes, bool direct) {
    const auto& bw = s.machine.bandwidth;
    const auto b = static_cast<double>(bytes);
    auto over = [b](double gbps, double latency_us) { return latency_us + b / (gbps * 1e3); };
    if (src < 0 || dst < 0) {
        return over(bw.host_gbps, 10.0);
    }
    if (src == dst) {
        return over(bw.device_gbps, 2.0);
    }
    if (!direct) {
        // The driver stages through host memory: down and up again.
        return 2.0 * over(bw.host_gbps, 10.0);
    }
    const auto p = static_cast<std::size_t>(src);
    const auto q = static_cast<std::size_t>(dst);
    if (p < bw.p2p_gbps.size() && q < bw.p2p_gbps[p].size() && bw.p2p_gbps[p][q] > 0.0) {
        return over(bw.p2p_gbps[p][q], 8.0);
    }
    if (p < s.machine.matrix.size() && q < s.machine.matrix[p].size() &&
        s.machine.matrix[p][q].is_nvlink()) {
        return over(bw.nvlink_gbps_per_link * s.machine.matrix[p][q].nvlinks, 2.0);
    }
    return over(bw.pcie_gbps, 8.0);
}

bool run_next(CUstream stream) {
    if (stream == nullptr || stream->running || stream->work.empty()) {
        return false;
    }
    auto work = std::move(stream->work.front());
    stream->work.pop_front();
    stream->running = true;
    work();
    stream->running = false;
    return true;
}

void drain(CUstream stream) {
    while (run_next(stream)) {
    }
}

void enqueue(CUstream stream, double duration_us, std::function<void()> work) {
    if (stream == nullptr) {
        work();
        return;
    }
    stream->clock_us += duration_us;
    stream->work.push_back(std::move(work));
}

bool run_elsewhere(State& s) {
    for (CUstream_st* stream : s.streams) {
        if (run_next(stream)) {
            return true;
        }
    }
    return false;
}

namespace {

std::uint32_t spread(std::uint64_t i) {
    i ^= i >> 33U;
    i *= 0xFF51AFD7ED558CCDULL;
    i ^= i >> 33U;
    return static_cast<std::uint32_t>(i % 1'000'000U);
}

}  // namespace

void faulty_copy(std::uint8_t* to,
                 const std::uint8_t* from,
                 std::size_t bytes,
                 const snapshot::MachineFault& fault) {
    const auto threshold = static_cast<std::uint32_t>(fault.fraction * 1'000'000.0);
    for (std::size_t i = 0; i < bytes / 4U; ++i) {
        std::uint32_t value = 0;
        std::memcpy(&value, from + i * 4U, 4U);
        if (fault.fraction >= 1.0 || spread(i) < threshold) {
            if (fault.effect == "drop") {
                continue;
            }
            value ^= 0x00400000U;
            value = value == engine::kSentinelBits ? value ^ 1U : value;
        }
        std::memcpy(to + i * 4U, &value, 4U);
    }
}

}  // namespace peergate::sim::cuda

using namespace peergate::sim::cuda;  // NOLINT

namespace {

std::optional<std::string> environment(const char* name) {
    const char* value = std::getenv(name);  // NOLINT: a driver stand-in reads its environment
    return value == nullptr ? std::nullopt : std::optional<std::string>(value);
}

// Reads the machine file at `path` and applies a cuInit fault, without holding the lock (a
// hanging cuInit must not block the other threads' calls).
CUresult load(const std::string& path, std::optional<peergate::snapshot::MachineFile>& out) {
    if (path.empty()) {
        return CUDA_ERROR_NO_DEVICE;
    }
    auto machine = peergate::snapshot::load_machine(path);
    if (!machine) {
        return CUDA_ERROR_NO_DEVICE;
    }
    if (peergate::snapshot::driver_mismatch(*machine)) {
        return CUDA_ERROR_SYSTEM_DRIVER_MISMATCH;  // as after an upgrade without a reboot
    }
    if (peergate::snapshot::fabric_unregistered(*machine)) {
        return CUDA_ERROR_SYSTEM_NOT_READY;  // no fabric manager has registered every GPU
    }
    for (const auto& fault : machine->faults) {
        if (fault.layer == "cuda" && fault.call == "cuInit") {
            return fail_or_hang(fault);
        }
    }
    // Like the real driver, the device order and mask are read once, here: ordinals,
    // names and bus ids follow them for the life of the process.
    const auto positions = peergate::sim::cuda_visible_positions(
        machine->gpus, environment("CUDA_VISIBLE_DEVICES"), environment("CUDA_DEVICE_ORDER"));
    out = peergate::sim::restrict_to_positions(*machine, positions);
    return CUDA_SUCCESS;
}

struct ErrorText {
    CUresult code;
    const char* name;
    const char* text;
};

// clang-format off
constexpr ErrorText kErrors[] = {
    {CUDA_SUCCESS, "CUDA_SUCCESS", "no error"},
    {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {CUDA_ERROR_PEER_ACCESS_UNSUPPORTED, "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED",
     "peer access is not supported between these two devices"},
    {CUDA_ERROR_INVALID_PTX, "CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed"},
    {CUDA_ERROR_UNSUPPORTED_PTX_VERSION, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
     "the provided PTX was compiled with an unsupported toolchain"},
    {CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
    {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {CUDA_ERROR_NOT_READY, "CUDA_ERROR_NOT_READY", "device not ready"},
    {CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS", "an illegal memory access was encountered"},
    {CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED, "CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED",
     "peer access is already enabled"},
    {CUDA_ERROR_NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED", "operation not supported"},
    {CUDA_ERROR_SYSTEM_NOT_READY, "CUDA_ERROR_SYSTEM_NOT_READY", "system not yet initialized"},
    {CUDA_ERROR_SYSTEM_DRIVER_MISMATCH, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH",
     "system has unsupported display driver / cuda driver combination"},
    {CUDA_ERROR_UNKNOWN, "CUDA_ERROR_UNKNOWN", "unknown error"},
};
// clang-format on

}  // namespace

PEERGATE_SIM_EXPORT CUresult cuInit(unsigned int flags) {
    if (flags != 0) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    const std::string path = wanted_machine();
    {
        State& s = state();
        std::lock_guard lock(s.mutex);
        // Like the real driver, an initialised one stays on its machine; only a cuInit for
        // another machine file (a library deciding for several simulated machines) moves it.
        if (s.initialised && (path.empty() || path == s.machine_path)) {
            return CUDA_SUCCESS;
        }
    }
    std::optional<peergate::snapshot::MachineFile> machine;
    if (const CUresult status = load(path, machine); status != CUDA_SUCCESS) {
        return status;
    }
    install_machine(path, std::move(*machine));
    return CUDA_SUCCESS;
}

PEERGATE_SIM_EXPORT void peergate_sim_cuda_use_machine(const char* path) {
    use_machine(path);
}

PEERGATE_SIM_EXPORT CUresult cuDriverGetVersion(int* version) {
    if (version == nullptr) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    State& s = state();
    std::lock_guard lock(s.mutex);
    *version = s.initialised ? s.machine.cuda_driver_version : 0;
    return CUDA_SUCCESS;
}

PEERGATE_SIM_EXPORT CUresult cuGetErrorName(CUresult error, const char** text) {
    for (const auto& e : kErrors) {
        if (e.code == error && text != nullptr) {
            *text = e.name;
            return CUDA_SUCCESS;
        }
    }
    return CUDA_ERROR_INVALID_VALUE;
}

PEERGATE_SIM_EXPORT CUresult cuGetErrorString(CUresult error, const char** text) {
    for (const auto& e : kErrors) {
        if (e.code == error && text != nullptr) {
            *text = e.text;
            return CUDA_SUCCESS;
        }
    }
    return CUDA_ERROR_INVALID_VALUE;
}
