// SPDX-License-Identifier: Apache-2.0
// The doctor's reasoning: from what each layer answered to findings and a verdict. Pure.
#pragma once

#include "model/discovery.hpp"
#include "model/finding.hpp"
#include "model/host_facts.hpp"
#include "model/kernel_event.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace peergate::policy {

// Whether a runtime part could be found, and what exactly was tried.
struct PartStatus {
    std::string what;  // "NVML library", "CUDA driver library", "nvidia-smi"
    bool found = false;
    std::string detail;  // the path that loaded, or why none did
};

struct DoctorInput {
    std::vector<PartStatus> parts;
    model::Discovery discovery;
    model::HostFacts host;
    std::string simulate_hint;  // a built-in machine to suggest for a demo; "" for none
    std::vector<model::KernelEvent> kernel_events;
    std::string kernel_log_source;  // where the kernel log came from, or why none was read
};

enum class Verdict { healthy, problems, inconclusive };

// "healthy", "problems", "inconclusive".
std::string_view to_string(Verdict verdict);

struct DoctorReport {
    Verdict verdict = Verdict::inconclusive;
    std::vector<model::Finding> findings;
};

DoctorReport diagnose(const DoctorInput& input);

// Exit status for a verdict: 0 healthy, 1 problems, 2 inconclusive.
int exit_status(Verdict verdict);

}  // namespace peergate::policy
