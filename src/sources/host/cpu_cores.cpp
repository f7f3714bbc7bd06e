// SPDX-License-Identifier: Apache-2.0
#include "sources/host/cpu_cores.hpp"

#include "util/strings.hpp"

#include <algorithm>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace peergate::sources::host {

namespace {

constexpr const char* kCpuDir = "/sys/devices/system/cpu";

std::optional<int> read_number(const HostRoot& root, const std::string& path) {
    const auto text = root.read_text(path);
    return text ? util::parse_int<int>(util::trim(*text)) : std::nullopt;
}

}  // namespace

std::vector<CpuPlace> cpu_places(const HostRoot& root) {
    const auto names = root.list(kCpuDir);
    if (!names) {
        return {};
    }
    std::vector<CpuPlace> places;
    for (const auto& name : *names) {
        const auto cpu =
            name.starts_with("cpu") ? util::parse_int<int>(name.substr(3)) : std::nullopt;
        if (!cpu) {
            continue;  // cpufreq, cpuidle, online, ...
        }
        const std::string topology = std::string(kCpuDir) + "/" + name + "/topology/";
        const auto package = read_number(root, topology + "physical_package_id");
        const auto core = read_number(root, topology + "core_id");
        if (!package || !core) {
            continue;
        }
        places.push_back({.cpu = *cpu, .package = *package, .core = *core});
    }
    std::sort(
        places.begin(), places.end(), [](const auto& a, const auto& b) { return a.cpu < b.cpu; });
    return places;
}

std::map<int, int> logical_cores(const HostRoot& root) {
    const auto places = cpu_places(root);
    // Each core by its first CPU, then cores in (package, first CPU) order.
    std::map<std::pair<int, int>, int> first_cpu;  // (package, core_id) -> lowest CPU
    for (const auto& place : places) {
        auto [it, fresh] = first_cpu.emplace(std::pair{place.package, place.core}, place.cpu);
        it->second = fresh ? place.cpu : std::min(it->second, place.cpu);
    }
    std::vector<std::tuple<int, int, std::pair<int, int>>> order;  // package, first CPU, key
    for (const auto& [key, cpu] : first_cpu) {
        order.emplace_back(key.first, cpu, key);
    }
    std::sort(order.begin(), order.end());
    std::map<std::pair<int, int>, int> index;
    for (std::size_t i = 0; i < order.size(); ++i) {
        index[std::get<2>(order[i])] = static_cast<int>(i);
    }
    std::map<int, int> out;
    for (const auto& place : places) {
        out[place.cpu] = index[{place.package, place.core}];
    }
    return out;
}

}  // namespace peergate::sources::host
