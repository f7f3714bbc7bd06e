// SPDX-License-Identifier: Apache-2.0
#include "sim/machine/cpuinfo_text.hpp"

#include "util/strings.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace peergate::sim {

namespace {

// A real Xeon's flags, trimmed; "hypervisor" goes where the kernel prints it (after rdrand).
constexpr const char* kFlagsBefore =
    "fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush mmx fxsr sse "
    "sse2 ht syscall nx pdpe1gb rdtscp lm constant_tsc rep_good nopl xtopology cpuid pni pclmulqdq "
    "ssse3 fma cx16 pcid sse4_1 sse4_2 x2apic movbe popcnt aes xsave avx f16c rdrand";
constexpr const char* kFlagsAfter =
    "lahf_lm abm 3dnowprefetch avx2 bmi1 bmi2 erms avx512f avx512bw";

// The highest CPU named in any GPU's affinity list ("0-47,96-143" -> 143).
int highest_cpu(const snapshot::MachineFile& m) {
    int highest = 0;
    for (const auto& gpu : m.gpus) {
        for (const auto range : util::split(gpu.cpu_affinity, ',')) {
            const auto parts = util::split(range, '-');
            highest = std::max(highest, util::parse_int<int>(util::trim(parts.back())).value_or(0));
        }
    }
    return highest;
}

// The lines of each processor's block that name the CPU's kind, those the machine gives
// (x86's layout: vendor_id, cpu family, model; docs/machine-file.md).
std::string cpu_kind_lines(const snapshot::MachineHost& host) {
    std::string lines;
    if (!host.cpu_vendor.empty()) {
        lines += fmt::format("vendor_id\t: {}\n", host.cpu_vendor);
    }
    if (host.cpu_family) {
        lines += fmt::format("cpu family\t: {}\n", *host.cpu_family);
    }
    if (host.cpu_model) {
        lines += fmt::format("model\t\t: {}\n", *host.cpu_model);
    }
    return lines;
}

}  // namespace

std::string cpuinfo_text(const snapshot::MachineFile& m) {
    const std::string flags =
        std::string(kFlagsBefore) + (m.host.hypervisor ? " hypervisor " : " ") + kFlagsAfter;
    const std::string kind = cpu_kind_lines(m.host);
    std::string text;
    for (int cpu = 0; cpu <= highest_cpu(m); ++cpu) {
        text += fmt::format(
            "processor\t: {}\n{}model name\t: (simulated)\nflags\t\t: {}\n\n", cpu, kind, flags);
    }
    return text;
}

}  // namespace peergate::sim
