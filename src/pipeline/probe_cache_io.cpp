// SPDX-License-Identifier: Apache-2.0
#include "pipeline/probe_cache_io.hpp"

#include "report/probe/cache_json.hpp"
#include "sources/host/host_facts_reader.hpp"
#include "sources/host/host_name.hpp"
#include "util/atomic_file.hpp"
#include "util/bounded_read.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <cctype>
#include <chrono>
#include <filesystem>
#include <system_error>

namespace peergate::pipeline {

namespace {

// A probe writes about 1.5 KiB per ordered pair (some 8 MiB for 72 GPUs); the file is read on
// every gate and exec, and a FIFO or a device in its place must not stall them.
constexpr std::size_t kLargestCacheFile = 64U << 20U;

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

std::string probe_cache_dir(const util::EnvMap& env, const std::string& flag) {
    return flag.empty() ? util::xdg_cache_dir(env, "peergate") : flag;
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
    const std::string dir = probe_cache_dir(ctx.env, flag);
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
    const auto identity = identity_of(setup, discovery, host_facts(ctx));
    const model::ProbeCacheEntry entry{.identity = identity,
                                       .result = with_earlier_pairs(file, identity, result),
                                       .written_at = now_utc()};
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(file).parent_path(), ec);
    auto written = util::write_file_atomically(file, report::probe::probe_cache_to_text(entry));
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
    auto setup = set_up_cuda(ctx, discovery, {}, std::chrono::seconds(10));
    if (!setup) {
        return CacheReading{
            .entry = std::move(entry),
            .verdict = {.valid = false,
                        .reason = "cannot identify this machine: " + setup.error().message}};
    }
    auto verdict =
        policy::gate::judge_cache(entry, identity_of(*setup, discovery, host_facts(ctx)));
    if (!text) {
        verdict.reason = "no cached probe result (" + text.error().message + ")";
    } else if (!entry) {
        verdict.reason = "the cache is unreadable: " + why;
    }
    return CacheReading{.entry = std::move(entry), .verdict = std::move(verdict)};
}

std::optional<CacheReading> read_probe_cache_if_present(const Context& ctx,
                                                        const model::Discovery& discovery) {
    const std::string file = probe_cache_path(ctx, "");
    if (file.empty() || !std::filesystem::exists(file)) {
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
