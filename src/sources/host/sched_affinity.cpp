// SPDX-License-Identifier: Apache-2.0
#include "sources/host/sched_affinity.hpp"

#include <sched.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <string>

namespace peergate::sources::host {

namespace {

// Large enough for any machine Linux runs on today; CPU_ALLOC sizes the mask for it.
constexpr int kMaxCpus = 8192;

struct CpuSetDeleter {
    void operator()(cpu_set_t* set) const { CPU_FREE(set); }
};

using CpuSet = std::unique_ptr<cpu_set_t, CpuSetDeleter>;

util::Unexpected failed(const char* call) {
    return util::unexpected(util::ErrorCode::unavailable,
                            std::string(call) + ": " + std::strerror(errno));
}

}  // namespace

util::Expected<std::vector<int>> allowed_cpus() {
    const CpuSet set(CPU_ALLOC(kMaxCpus));
    const std::size_t size = CPU_ALLOC_SIZE(kMaxCpus);
    if (!set) {
        return failed("CPU_ALLOC");
    }
    CPU_ZERO_S(size, set.get());
    if (::sched_getaffinity(0, size, set.get()) != 0) {
        return failed("sched_getaffinity");
    }
    std::vector<int> cpus;
    for (int cpu = 0; cpu < kMaxCpus; ++cpu) {
        if (CPU_ISSET_S(static_cast<std::size_t>(cpu), size, set.get())) {
            cpus.push_back(cpu);
        }
    }
    return cpus;
}

util::Expected<void> bind_to_cpus(const std::vector<int>& cpus) {
    const CpuSet set(CPU_ALLOC(kMaxCpus));
    const std::size_t size = CPU_ALLOC_SIZE(kMaxCpus);
    if (!set) {
        return failed("CPU_ALLOC");
    }
    CPU_ZERO_S(size, set.get());
    for (int cpu : cpus) {
        if (cpu < 0 || cpu >= kMaxCpus) {
            return util::unexpected(util::ErrorCode::invalid_input,
                                    "CPU " + std::to_string(cpu) + " is out of range");
        }
        CPU_SET_S(static_cast<std::size_t>(cpu), size, set.get());
    }
    if (::sched_setaffinity(0, size, set.get()) != 0) {
        return failed("sched_setaffinity");
    }
    return {};
}

}  // namespace peergate::sources::host
