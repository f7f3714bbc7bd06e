// SPDX-License-Identifier: Apache-2.0
#include "sources/host/cpu_identity.hpp"

#include "util/strings.hpp"

#include <sys/utsname.h>

namespace peergate::sources::host {

namespace {

// "cpu family\t: 25" -> {"cpu family", "25"}; a line without ':' gives an empty key.
std::pair<std::string_view, std::string_view> key_value(std::string_view line) {
    const auto colon = line.find(':');
    if (colon == std::string_view::npos) {
        return {};
    }
    return {util::trim(line.substr(0, colon)), util::trim(line.substr(colon + 1))};
}

// The live host's architecture where the kernel predates /proc/sys/kernel/arch; under any
// other root (a recorded or simulated host) the build's architecture would be a guess.
std::string arch_of(const HostRoot& root) {
    if (const auto text = root.read_text("/proc/sys/kernel/arch")) {
        return std::string(util::trim(*text));
    }
    if (!root.root().empty() && root.root() != "/") {
        return "";
    }

    struct utsname names {};

    return ::uname(&names) == 0 ? std::string(names.machine) : std::string();
}

}  // namespace

model::CpuIdentity parse_cpuinfo_identity(std::string_view cpuinfo) {
    model::CpuIdentity cpu;
    bool in_block = false;
    for (std::string_view line : util::split_lines(cpuinfo)) {
        if (util::trim(line).empty() && in_block) {
            break;  // the first processor's block ends here; the others repeat it
        }
        const auto [key, value] = key_value(line);
        in_block = in_block || !key.empty();
        if (key == "vendor_id") {
            cpu.vendor = std::string(value);
        } else if (key == "cpu family") {
            cpu.family = util::parse_int<int>(value);
        } else if (key == "model") {
            cpu.model = util::parse_int<int>(value);
        }
    }
    return cpu;
}

model::CpuIdentity read_cpu_identity(const HostRoot& root) {
    const auto cpuinfo = root.read_text("/proc/cpuinfo");
    auto cpu = cpuinfo ? parse_cpuinfo_identity(*cpuinfo) : model::CpuIdentity{};
    cpu.arch = arch_of(root);
    return cpu;
}

}  // namespace peergate::sources::host
