// SPDX-License-Identifier: Apache-2.0
// The identity join of docs/gate-rules.md §4 "beyond": which physical GPUs the child will see,
// asked of the CUDA driver in a short-lived helper process (`peergate cuda-visible`)
// started with exactly the child's environment.
#pragma once

#include "model/gpu.hpp"
#include "model/pci_address.hpp"
#include "policy/gate/types.hpp"
#include "util/env_map.hpp"
#include "util/expected.hpp"
#include "util/seams.hpp"

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace peergate::pipeline {

// The environment the child will get as far as CUDA cares: `env`, plus for an explicit
// selection with pinning CUDA_DEVICE_ORDER=PCI_BUS_ID and CUDA_VISIBLE_DEVICES=<LIST>
// (the same values the gate's plan sets; "all" lists `host`'s indices).
util::EnvMap child_cuda_environment(const util::EnvMap& env,
                                    const policy::gate::Selection& selection,
                                    bool pin_selection,
                                    const std::vector<model::Gpu>& host);

// The helper's side (`peergate cuda-visible`). On success `out` holds the PCI bus id (NVML
// form) of every CUDA device this process sees, one per line in CUDA ordinal order. All or
// nothing: a half list would mislead. When the driver loaded and cuInit failed, `out` is the
// one line "cuda-init-failed <CUresult> <the driver's words>" (the parent vetoes on it,
// docs/gate-rules.md §2 cuda_unavailable); `error` then says the same for stderr.
struct CudaVisibleAnswer {
    std::string out;
    std::optional<util::Error> error;  // set: the helper exits 2
};

CudaVisibleAnswer list_cuda_visible(const util::Seams& seams);

// Parses the helper's output: one NVML-form PCI bus id per line, CUDA ordinal order.
util::Expected<std::vector<model::PciAddress>> parse_cuda_visible(const std::string& text);

// The cuInit failure a failed helper reported on its first line of stdout; nullopt when it
// reported none (the driver did not load, the helper crashed, timed out ...).
std::optional<policy::gate::CudaInitFailure> parse_cuda_init_failure(const std::string& out);

// This executable (/proc/self/exe), or "" when it cannot be read.
std::string self_executable();

// Whether the CUDA driver library at `path` can be loaded (a path must exist; a bare
// soname is dlopen'ed and closed again, without cuInit).
bool cuda_library_loads(const std::string& path);

// Runs `helper_binary --cuda-lib <lib> cuda-visible` under `child_env` within `timeout`.
// The error says why the join could not be made; `init_failure`, when given, receives the
// cuInit failure the helper reported (see parse_cuda_init_failure).
util::Expected<std::vector<model::PciAddress>> enumerate_child_visible(
    const std::string& helper_binary,
    const util::Seams& seams,
    const util::EnvMap& child_env,
    std::chrono::milliseconds timeout = std::chrono::milliseconds(10'000),
    std::optional<policy::gate::CudaInitFailure>* init_failure = nullptr);

}  // namespace peergate::pipeline
