// SPDX-License-Identifier: Apache-2.0
// The simulated CUDA driver's state: the machine file, device memory behind opaque
// device addresses (sim_cuda_memory.hpp), streams whose work runs when they are
// synchronised, modelled timings, and the faults the machine file asks for.
// A stand-in for the real driver, so it reads its environment itself (PEERGATE_SIM_MACHINE),
// unless the program that loaded it named the machine (peergate_sim_cuda_use_machine).
#pragma once

#include "sim/cuda/sim_cuda_memory.hpp"
#include "snapshot/machine_file.hpp"
#include "sources/cuda/cuda_abi.hpp"

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

// The opaque handle types of cuda_abi.hpp, given bodies here.
struct CUctx_st {
    int device = 0;
    int retained = 0;
    std::set<int> peers;  // devices this context may access directly
};

struct CUstream_st {
    int device = 0;
    std::deque<std::function<void()>> work;  // runs when the stream is synchronised
    double clock_us = 0.0;                   // modelled time of the last enqueued work
    // Modelled time that work found it took only when it ran (a waiter that spun out its
    // budget): events recorded before it and completed after it take it in.
    double late_us = 0.0;
    bool running = false;  // a piece of its work is running: nothing else of it may start
};

struct CUevent_st {
    bool recorded = false;
    bool complete = false;
    double time_us = 0.0;
    double late_base_us = 0.0;  // the stream's late_us when the event was recorded
    CUstream_st* stream = nullptr;
};

struct CUfunc_st {
    std::string name;
    int device = 0;  // a module, and its functions, belong to the context it was loaded in
};

struct CUmod_st {
    std::vector<std::unique_ptr<CUfunc_st>> functions;
};

namespace peergate::sim::cuda {

using namespace peergate::sources::cuda;  // NOLINT: the CUresult constants

struct State {
    std::mutex mutex;
    bool initialised = false;
    snapshot::MachineFile machine;
    std::string machine_path;                         // the file `machine` was read from
    std::vector<std::unique_ptr<CUctx_st>> contexts;  // one primary context per device
    std::map<CUdeviceptr, Allocation> allocations;    // by start address
    std::vector<std::uint64_t> allocated_bytes;       // per device
    CUdeviceptr next_address = 0x00D0'0000'0000ULL;
    std::set<void*> pinned;
    int copies_in_flight = 0;            // peer copies enqueued, not yet run
    std::int64_t direct_copies_run = 0;  // peer copies run on the direct path, for after_copies
    // Per pending copy, the most copies in flight since it was enqueued: a load fault
    // applies to every copy that shared the bus with enough others, whatever the order
    // in which their streams are synchronised.
    std::vector<std::shared_ptr<int>> pending_peaks;
    std::set<CUstream_st*> streams;  // live streams, for work that lets the others run
    // Per handshake flag address: the device whose writer stored it and the payload's size,
    // so that the waiter can model how long the payload took to cross.
    std::map<CUdeviceptr, std::pair<int, std::size_t>> flag_writers;
};

// The process-wide state (the real driver is process-wide too): the machine of the latest
// cuInit. A state replaced by a cuInit that names another machine is retired, never freed.
State& state();

// Names the machine file for the next cuInit, over PEERGATE_SIM_MACHINE ("": the variable
// again). A driver loaded into a program that did not set the variable (the C API's callers)
// is told this way, without touching the program's environment (as sim NVML's
// peergate_sim_nvml_use_machine).
void use_machine(const char* path);

// The machine file the next cuInit reads: use_machine's, else PEERGATE_SIM_MACHINE's; "" when
// neither names one.
std::string wanted_machine();

// Makes `machine`, read from `path`, the process's state: installed into the current state
// when that holds none yet, else into a fresh one that replaces it (the old one is retired).
void install_machine(const std::string& path, snapshot::MachineFile machine);

// The calling thread's current context (cuCtxSetCurrent).
CUctx_st*& current_context();

// [address, address + bytes) in the one allocation holding it; false when there is none.
DeviceRange device_range(State& s, CUdeviceptr address, std::size_t bytes);

// The first "cuda" fault for `call` that applies (device filter, min_bytes), if any.
std::optional<snapshot::MachineFault> cuda_fault(const State& s,
                                                 const char* call,
                                                 int device,
                                                 std::uint64_t bytes);

// Applies a "cuda" fault: never returns for "hang"; the code for "fail".
CUresult fail_or_hang(const snapshot::MachineFault& fault);

// Modelled seconds x 1e6 for `bytes` from device src to dst (-1 = pinned host).
double copy_time_us(const State& s, int src, int dst, std::size_t bytes, bool direct);

// nvidia-smi index of the device at position p.
int gpu_index(const State& s, int device);

// Runs the next piece of work queued on `stream` unless a piece of it is running already;
// false when nothing ran (caller holds the lock).
bool run_next(CUstream stream);

// Runs everything queued on `stream`, in order (caller holds the lock).
void drain(CUstream stream);

// Queues `work` on `stream` taking `duration_us` of modelled time; the NULL stream runs it now.
void enqueue(CUstream stream, double duration_us, std::function<void()> work);

// Runs one piece of work queued on any stream that is not running: how a kernel spinning on
// a flag lets the other GPUs progress. false when no stream had any to run.
bool run_elsewhere(State& s);

// Copies word by word from `from` to `to`, dropping or corrupting `fault.fraction` of the
// words ("drop" leaves the destination's word, "corrupt" flips a bit; never into the
// sentinel).
void faulty_copy(std::uint8_t* to,
                 const std::uint8_t* from,
                 std::size_t bytes,
                 const snapshot::MachineFault& fault);

}  // namespace peergate::sim::cuda

#define PEERGATE_SIM_EXPORT extern "C" __attribute__((visibility("default")))
