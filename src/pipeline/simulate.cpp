// SPDX-License-Identifier: Apache-2.0
#include "pipeline/simulate.hpp"

#include "peergate/install_layout.hpp"
#include "pipeline/module_location.hpp"
#include "sim/machine/host_root_writer.hpp"
#include "snapshot/machine_file.hpp"
#include "util/atomic_file.hpp"
#include "util/bounded_read.hpp"
#include "util/private_directory.hpp"
#include "util/strings.hpp"

#include <fmt/format.h>

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <system_error>

namespace peergate::pipeline {

namespace fs = std::filesystem;

namespace {

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
        fmt::format("--simulate: no built-in machine '{}'; built-in machines: {}",
                    name_or_file,
                    known.empty() ? std::string("none installed in " + parts.machines_dir)
                                  : util::join(known, ", ")));
}

// FNV-1a, 64 bits: a cache key, not a defence against anyone.
std::uint64_t content_hash(std::string_view text) {
    std::uint64_t hash = 14695981039346656037ULL;
    for (const char c : text) {
        hash ^= static_cast<unsigned char>(c);
        hash *= 1099511628211ULL;
    }
    return hash;
}

// Writes the tree into a private sibling, then renames it into place: a concurrent run
// either wins the rename or finds the finished tree; nobody ever sees half a tree.
util::Expected<std::string> publish_host_root(const snapshot::MachineFile& machine,
                                              const fs::path& target) {
    std::error_code ec;
    // Unique per process and per call, so two writers (processes or threads) never share one.
    static std::atomic<unsigned> calls{0};
    const fs::path temporary = target.string() + fmt::format(".tmp-{}-{}", ::getpid(), calls++);
    if (auto written = sim::write_host_root(machine, temporary.string()); !written) {
        fs::remove_all(temporary, ec);
        return util::unexpected(written.error());
    }
    fs::rename(temporary, target, ec);
    if (ec) {
        fs::remove_all(temporary, ec);
        if (!fs::is_directory(target)) {
            return util::unexpected(util::ErrorCode::io, "cannot publish " + target.string());
        }
    }
    return target.string();
}

}  // namespace

bool smi_missing(const snapshot::MachineFile& machine) {
    const auto faults = snapshot::faults_for(machine, "smi");
    return std::any_of(
        faults.begin(), faults.end(), [](const auto& f) { return f.effect == "missing"; });
}

util::Expected<std::string> materialise_host_root(const std::string& machine_text,
                                                  const snapshot::MachineFile& machine,
                                                  const util::EnvMap& env) {
    const std::string tmp = env.get("TMPDIR").value_or("");
    const fs::path base =
        fs::path(tmp.empty() ? "/tmp" : tmp) / fmt::format("peergate-sim-{}", ::getuid());
    const std::string key = std::string(sim::kHostRootLayout) + "\n" + machine_text;
    const fs::path target = base / fmt::format("{:016x}", content_hash(key));
    // Only a directory this user made and alone can write is reused: another user could
    // have made the predictable name first and planted links in it (docs/security.md).
    std::error_code parent_ec;
    fs::create_directories(base.parent_path(), parent_ec);  // TMPDIR itself, as before
    if (auto private_base = util::make_private_directory(base.string()); !private_base) {
        return util::unexpected(private_base.error());
    }
    std::error_code ec;
    if (fs::is_directory(fs::symlink_status(target, ec))) {
        return target.string();  // written by an earlier run from the same content
    }
    return publish_host_root(machine, target);
}

SimulationParts locate_simulation_parts() {
    const fs::path root = install_prefix();
    const fs::path parts = root / install::kPartsDir;
    return SimulationParts{
        .machines_dir = (root / install::kMachinesDir).string(),
        .nvml_library = (parts / "libpeergate_sim_nvml.so").string(),
        .cuda_library = (parts / "libpeergate_sim_cuda.so").string(),
        .nvidia_smi = (root / install::kHelpersDir / "peergate-sim-nvidia-smi").string(),
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

util::Expected<void> apply_simulation(const std::string& name_or_file, Context& ctx) {
    const SimulationParts parts = locate_simulation_parts();
    auto machine = resolve_machine(name_or_file, parts);
    if (!machine) {
        return util::unexpected(machine.error());
    }
    constexpr std::size_t kLargestMachineFile = std::size_t{16} << 20U;  // as load_machine's
    auto text = util::read_regular_file(*machine, kLargestMachineFile);
    if (!text) {
        return util::unexpected(text.error());
    }
    auto parsed = snapshot::parse_machine(*text);
    if (!parsed) {
        return util::unexpected(parsed.error().code,
                                "--simulate: " + *machine + ": " + parsed.error().message);
    }
    auto host_root = materialise_host_root(*text, *parsed, ctx.env);
    if (!host_root) {
        return util::unexpected(host_root.error().code,
                                "--simulate: host root: " + host_root.error().message);
    }
    ctx.seams.simulated_machine = *machine;
    ctx.seams.nvml_libraries = {parts.nvml_library};
    ctx.seams.cuda_library = parts.cuda_library;
    ctx.seams.nvidia_smi = parts.nvidia_smi;
    ctx.seams.host_root = *host_root;
    if (smi_missing(*parsed)) {
        // The real "binary not found" path runs: the seam names a file that is not there.
        ctx.seams.nvidia_smi =
            (fs::path(parts.nvidia_smi).parent_path() / "nvidia-smi.not-installed").string();
    }
    // The simulated parts read the machine file named here, in this process (dlopen'd
    // libraries) and in children (the simulated nvidia-smi gets this env explicitly).
    ctx.env.set("PEERGATE_SIM_MACHINE", *machine);
    return {};
}

}  // namespace peergate::pipeline
