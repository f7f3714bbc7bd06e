// SPDX-License-Identifier: Apache-2.0
#include "sources/smi/smi_runner.hpp"

#include "sources/smi/topo_m_parser.hpp"
#include "util/strings.hpp"
#include "util/subprocess.hpp"

#include <fmt/format.h>

namespace peergate::sources::smi {

namespace {

std::string first_line(const std::string& text) {
    const auto lines = util::split_lines(text);
    for (auto line : lines) {
        if (!util::trim(line).empty()) {
            return std::string(util::trim(line)).substr(0, 200);
        }
    }
    return "";
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
        const std::string said = first_line(result->out.empty() ? result->err : result->out);
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
    return topology;
}

}  // namespace peergate::sources::smi
