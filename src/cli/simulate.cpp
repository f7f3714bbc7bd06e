// SPDX-License-Identifier: Apache-2.0
#include "cli/simulate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "util/strings.hpp"

namespace peergate::cli {

namespace fs = std::filesystem;

namespace {

fs::path exe_dir() {
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    return ec ? fs::current_path() : exe.parent_path();
}

// A machine name is a file in the built-in directory; anything with a '/' or ending in
// .json is a path the user gave.
util::Expected<std::string> resolve_machine(const std::string& name_or_file,
                                            const SimulationParts& parts) {
    std::error_code ec;
    const bool looks_like_path = name_or_file.find('/') != std::string::npos ||
                                 (name_or_file.size() > 5 && name_or_file.ends_with(".json"));
    if (looks_like_path || fs::is_regular_file(name_or_file, ec)) {
        if (!fs::is_regular_file(name_or_file, ec)) {
            return util::unexpected(util::ErrorCode::not_found,
                                    "--simulate: no machine file " + name_or_file);
        }
        return fs::absolute(name_or_file, ec).string();
    }
    const fs::path builtin = fs::path(parts.machines_dir) / (name_or_file + ".json");
    if (fs::is_regular_file(builtin, ec)) {
        return builtin.string();
    }
    const auto known = builtin_machines(parts);
    return util::unexpected(
        util::ErrorCode::not_found,
        fmt::format("--simulate: no built-in machine '{}'; built-in machines: {}", name_or_file,
                    known.empty() ? std::string("none installed in " + parts.machines_dir)
                                  : util::join(known, ", ")));
}

}  // namespace

SimulationParts locate_simulation_parts() {
    const fs::path root = exe_dir().parent_path();
    return SimulationParts{
        .machines_dir = (root / "share/peergate/machines").string(),
        .nvml_library = (root / "lib/peergate/libpeergate_sim_nvml.so").string(),
        .cuda_library = (root / "lib/peergate/libpeergate_sim_cuda.so").string(),
        .nvidia_smi = (root / "libexec/peergate/peergate-sim-nvidia-smi").string(),
    };
}

std::vector<std::string> builtin_machines(const SimulationParts& parts) {
    std::vector<std::string> names;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(parts.machines_dir, ec)) {
        if (entry.path().extension() == ".json") {
            names.push_back(entry.path().stem().string());
        }
    }
    std::sort(names.begin(), names.end());
    return names;
}

util::Expected<void> apply_simulation(const std::string& name_or_file, Invocation& inv) {
    const SimulationParts parts = locate_simulation_parts();
    auto machine = resolve_machine(name_or_file, parts);
    if (!machine) {
        return util::unexpected(machine.error());
    }
    inv.seams.simulated_machine = *machine;
    inv.seams.nvml_libraries = {parts.nvml_library};
    inv.seams.cuda_library = parts.cuda_library;
    inv.seams.nvidia_smi = parts.nvidia_smi;
    // The simulated parts read the machine file named here, in this process (dlopen'd
    // libraries) and in children (the simulated nvidia-smi gets this env explicitly).
    inv.env.set("PEERGATE_SIM_MACHINE", *machine);
    return {};
}

}  // namespace peergate::cli
