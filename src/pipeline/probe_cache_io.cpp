// SPDX-License-Identifier: Apache-2.0
#include "pipeline/probe_cache_io.hpp"

#include "report/probe/cache_json.hpp"
#include "sources/host/host_facts_reader.hpp"
#include "sources/host/host_name.hpp"
#include "util/atomic_file.hpp"
#include "util/bounded_read.hpp"
#include "util/file_lock.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <filesystem>
#include <system_error>

namespace peergate::pipeline {

namespace {

// A probe writes about 1.5 KiB per ordered pair (some 8 MiB for 72 GPUs); the file is read on
// every gate and exec, and a FIFO or a device in its place must not stall them.
constexpr std::size_t kLargestCacheFile = 64U << 20U;

// Root's cache, whatever HOME says: sudo -E and su without '-' pass a user's HOME and
// XDG_CACHE_HOME on, and Slurm's health check runs with none (docs/security.md).
constexpr const char* kSystemCacheDir = "/var/cache/peergate";

// A probe holds the lock for one read-merge-write (milliseconds); another probe waits.
constexpr std::chrono::milliseconds kLockPatience{10'000};

// Whether anything is at `file` (a link, a FIFO, an unreadable directory on the way
// included): such a cache is read, and doubt if it cannot be.
bool something_at(const std::string& file) {
    std::error_code ec;
    const auto status = std::filesystem::symlink_status(file, ec);
    return ec ? ec != std::errc::no_such_file_or_directory && ec != std::errc::not_a_directory
              : status.type() != std::filesystem::file_type::not_found;
}

// The cache directory, made 0755 when peergate makes it, so that what the umask allows does
// not make the cache one that the reader refuses as writable by others.
void make_cache_directory(const std::filesystem::path& dir) {
    std::error_code ec;
    std::filesystem::create_directories(dir.parent_path(), ec);
    if (::mkdir(dir.c_str(), 0755) == 0) {
        ::chmod(dir.c_str(), 0755);
    }
}

std::string uuid_of(const model::Discovery& discovery,
                    const std::optional<model::PciAddress>& pci) {
    if (!discovery.topology || !pci) {
        return "";
    }
    for (const auto& gpu : discovery.topology->gpus) {
        if (gpu.pci && *gpu.pci == *pci) {
            return gpu.uuid;
        }
    }
    return "";
}

model::HostFacts host_facts(const Context& ctx) {
    return sources::host::read_host_facts(sources::host::HostRoot(ctx.seams.host_root));
}

std::string now_utc() {
    return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", fmt::gmtime(std::chrono::system_clock::now()));
}

// `result` with the pairs the cache already holds from this boot and identity (a probe of
// other GPUs); anything else in the file is replaced.
model::ProbeResult with_earlier_pairs(const std::string& file,
                                      const model::MachineIdentity& identity,
                                      const model::ProbeResult& result) {
    auto text = util::read_owned_file(file, kLargestCacheFile);
    auto earlier = text ? report::probe::probe_cache_from_text(*text, nullptr) : std::nullopt;
    if (!earlier || !policy::gate::judge_cache(earlier, identity).valid) {
        return result;
    }
    return policy::gate::merge_probe_results(earlier->result, result);
}

}  // namespace

std::string probe_cache_dir(const util::EnvMap& env, const std::string& flag, bool as_root) {
    if (!flag.empty()) {
        return flag;
    }
    if (auto dir = env.get("PEERGATE_CACHE_DIR"); dir && !dir->empty()) {
        return *dir;
    }
    return as_root ? kSystemCacheDir : util::xdg_cache_dir(env, "peergate");
}

std::string probe_cache_file_name(std::string_view host_name, std::string_view simulated_machine) {
    std::string key = simulated_machine.empty()
                          ? std::string(host_name)
                          : "simulated-" + std::filesystem::path(simulated_machine).stem().string();
    for (char& c : key) {
        const bool safe =
            std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '.' || c == '_' || c == '-';
        c = safe ? c : '_';
    }
    return "probe-" + (key.empty() ? std::string("localhost") : key) + ".json";
}

std::string probe_cache_path(const Context& ctx, const std::string& flag) {
    const std::string dir = probe_cache_dir(ctx.env, flag, ::geteuid() == 0);
    if (dir.empty()) {
        return "";
    }
    return dir + "/" +
           probe_cache_file_name(sources::host::host_name(), ctx.seams.simulated_machine);
}

model::MachineIdentity identity_of(const CudaSetup& setup,
                                   const model::Discovery& discovery,
                                   const model::HostFacts& host) {
    model::MachineIdentity id;
    id.driver_version = fmt::format("cuda {}", setup.driver ? setup.driver->driver_version : 0);
    for (const auto& device : setup.map.devices) {
        id.pci_bus_ids.push_back(device.pci ? device.pci->to_nvml() : "");
        id.gpu_uuids.push_back(uuid_of(discovery, device.pci));
    }
    id.iommu = std::string(model::to_string(host.iommu));
    id.kernel_cmdline = host.kernel_cmdline;
    id.boot_id = host.boot_id;
    return id;
}

void store_probe_result(const Context& ctx,
                        const std::string& cache_dir,
                        const CudaSetup& setup,
                        const model::Discovery& discovery,
                        const model::ProbeResult& result) {
    const std::string file = probe_cache_path(ctx, cache_dir);
    if (file.empty()) {
        return;
    }
    make_cache_directory(std::filesystem::path(file).parent_path());
    // Two probes of different GPUs at once: each merges what the other wrote (kLockPatience).
    const auto [dir, name] = util::split_directory(file);
    auto lock = util::lock_file(dir + "/." + name + ".lock", kLockPatience);
    util::Expected<void> written = lock ? util::Expected<void>() : util::unexpected(lock.error());
    if (lock) {
        const auto identity = identity_of(setup, discovery, host_facts(ctx));
        const model::ProbeCacheEntry entry{.identity = identity,
                                           .result = with_earlier_pairs(file, identity, result),
                                           .written_at = now_utc()};
        written =
            util::write_file_atomically(file, report::probe::probe_cache_to_text(entry), 0644);
    }
    if (!written && !ctx.output.quiet) {
        fmt::print(
            ctx.output.err, "peergate: verdict cache not written: {}\n", written.error().message);
    }
}

CacheReading read_probe_cache(const Context& ctx,
                              const model::Discovery& discovery,
                              const std::string& cache_dir) {
    const std::string file = probe_cache_path(ctx, cache_dir);
    auto text = file.empty() ? util::Expected<std::string>(util::unexpected(
                                   util::ErrorCode::not_found, "no cache directory"))
                             : util::read_owned_file(file, kLargestCacheFile);
    std::optional<model::ProbeCacheEntry> entry;
    std::string why;
    if (text) {
        entry = report::probe::probe_cache_from_text(*text, &why);
    }
    // A cache that is there and cannot be read or trusted is doubt, not absence (a FIFO, a
    // link, another user's file, garbage): it may hold a loss.
    std::string doubt;
    if (!text && !file.empty() && something_at(file)) {
        doubt = "the verdict cache cannot be trusted: " + text.error().message;
    } else if (text && !entry) {
        doubt = "the verdict cache " + file + " is unreadable: " + why;
    }
    auto setup = set_up_cuda(ctx, discovery, {}, std::chrono::seconds(10));
    if (!setup) {
        const std::string reason = "cannot identify this machine: " + setup.error().message;
        return CacheReading{
            .entry = entry,
            .verdict = {
                .valid = false,
                .reason = reason,
                .doubt = entry ? policy::gate::unmatched_loss_doubt(*entry, reason) : doubt}};
    }
    auto verdict =
        policy::gate::judge_cache(entry, identity_of(*setup, discovery, host_facts(ctx)));
    if (!text) {
        verdict.reason = "no cached probe result (" + text.error().message + ")";
    } else if (!entry) {
        verdict.reason = "the cache is unreadable: " + why;
    }
    if (!doubt.empty()) {
        verdict.doubt = doubt;
    }
    return CacheReading{.entry = std::move(entry), .verdict = std::move(verdict)};
}

std::optional<CacheReading> read_probe_cache_if_present(const Context& ctx,
                                                        const model::Discovery& discovery) {
    const std::string file = probe_cache_path(ctx, "");
    if (file.empty() || !something_at(file)) {
        return std::nullopt;
    }
    return read_probe_cache(ctx, discovery);
}

policy::gate::CacheVerdict consult_probe_cache(const Context& ctx,
                                               const model::Discovery& discovery,
                                               const std::string& cache_dir) {
    return read_probe_cache(ctx, discovery, cache_dir).verdict;
}

}  // namespace peergate::pipeline
