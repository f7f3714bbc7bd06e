// SPDX-License-Identifier: Apache-2.0
#include "sources/smi/smi_runner.hpp"

#include "sources/smi/query_gpu_parser.hpp"
#include "sources/smi/topo_m_parser.hpp"
#include "util/strings.hpp"
#include "util/subprocess.hpp"

#include <fmt/format.h>

namespace peergate::sources::smi {

namespace {

// The first line nvidia-smi printed, and the "NVML library version: 580.159" line it adds
// after "Driver/library version mismatch" (the user-space version; the running module's is
// in /proc/driver/nvidia/version).
std::string what_it_said(const std::string& text) {
    std::string first;
    std::string library;
    for (auto line : util::split_lines(text)) {
        line = util::trim(line);
        if (first.empty() && !line.empty()) {
            first = std::string(line.substr(0, 200));
        } else if (line.starts_with("NVML library version:")) {
            library = std::string(line.substr(0, 80));
        }
    }
    return library.empty() ? first : first + "; " + library;
}

}  // namespace

util::Expected<std::string> run_smi(const std::string& nvidia_smi,
                                    const std::vector<std::string>& args,
                                    const util::EnvMap& env,
                                    std::chrono::milliseconds timeout) {
    util::Command command;
    command.argv.push_back(nvidia_smi);
    command.argv.insert(command.argv.end(), args.begin(), args.end());
    command.env = env;
    command.timeout = timeout;
    const std::string what = fmt::format("{} {}", nvidia_smi, fmt::join(args, " "));
    auto result = util::run_process(command);
    if (!result) {
        return util::unexpected(result.error().code, result.error().message);
    }
    if (!result->succeeded()) {
        const std::string said = what_it_said(result->out.empty() ? result->err : result->out);
        return util::unexpected(
            result->timed_out ? util::ErrorCode::timeout : util::ErrorCode::unavailable,
            fmt::format("'{}' {}{}",
                        what,
                        util::describe_failure(*result, timeout),
                        said.empty() ? "" : ": " + said));
    }
    return std::move(result->out);
}

util::Expected<model::Topology> smi_topology(const std::string& nvidia_smi,
                                             const util::EnvMap& env,
                                             std::chrono::milliseconds timeout) {
    auto text = run_smi(nvidia_smi, {"topo", "-m"}, env, timeout);
    if (!text) {
        return util::unexpected(text.error());
    }
    auto topology = parse_topo_m(*text);
    if (!topology) {
        return util::unexpected(topology.error());
    }
    topology->provenance = nvidia_smi + " topo -m";
    auto listing = run_smi(nvidia_smi,
                           {"--query-gpu=index,name,pci.bus_id,uuid", "--format=csv,noheader"},
                           env,
                           timeout);
    if (!listing) {
        return topology;
    }
    auto gpus = parse_query_gpu(*listing);
    if (!gpus) {
        return topology;
    }
    for (const auto& listed : *gpus) {
        if (const auto p = topology->position_of(listed.index)) {
            auto& gpu = topology->gpus[*p];
            gpu.name = listed.name;
            gpu.pci = listed.pci;
            gpu.uuid = listed.uuid;
        }
    }
    // The listing may contradict itself where topo -m could not (two GPUs, one bus id).
    if (auto ok = model::check_identities(*topology); !ok) {
        return util::unexpected(ok.error().code, "nvidia-smi --query-gpu: " + ok.error().message);
    }
    return topology;
}

}  // namespace peergate::sources::smi
