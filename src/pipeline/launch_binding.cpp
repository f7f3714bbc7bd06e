// SPDX-License-Identifier: Apache-2.0
#include "pipeline/launch_binding.hpp"

#include "policy/launch/cpu_binding.hpp"
#include "policy/launch/memory_binding.hpp"
#include "sources/host/memory_policy.hpp"
#include "sources/host/sched_affinity.hpp"

namespace peergate::pipeline {

namespace {

// The GPUs the decision read, with their CPU affinity and NUMA node where known: the
// topology's carry them, the bare listing (no topology) does not.
const std::vector<model::Gpu>& gathered_gpus(const policy::gate::GateInput& gathered) {
    return gathered.topology ? gathered.topology->gpus : gathered.gpus;
}

}  // namespace

BindingOutcome bind_cpus_near_gpus(const policy::gate::GateInput& gathered,
                                   const std::vector<int>& selection) {
    auto allowed = sources::host::allowed_cpus();
    auto binding = allowed
                       ? policy::launch::cpu_binding(gathered_gpus(gathered), selection, *allowed)
                       : policy::launch::CpuBinding{.why = allowed.error().message};
    if (!binding.cpus.empty()) {
        if (auto bound = sources::host::bind_to_cpus(binding.cpus); !bound) {
            binding.why = bound.error().message;
            binding.cpus.clear();
        }
    }
    return BindingOutcome{.bound = !binding.cpus.empty(), .why = std::move(binding.why)};
}

BindingOutcome bind_memory_near_gpus(const policy::gate::GateInput& gathered,
                                     const std::vector<int>& selection) {
    auto allowed = sources::host::allowed_memory_nodes();
    auto binding =
        allowed ? policy::launch::memory_binding(gathered_gpus(gathered), selection, *allowed)
                : policy::launch::MemoryBinding{.why = allowed.error().message};
    if (!binding.nodes.empty()) {
        if (auto bound = sources::host::bind_memory_to_nodes(binding.nodes); !bound) {
            binding.why = bound.error().message;
            binding.nodes.clear();
        }
    }
    return BindingOutcome{.bound = !binding.nodes.empty(), .why = std::move(binding.why)};
}

}  // namespace peergate::pipeline
