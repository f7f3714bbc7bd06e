// SPDX-License-Identifier: Apache-2.0
#include "report/exports/gres.hpp"

#include "util/cpu_list.hpp"
#include "util/strings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <vector>

namespace peergate::report::exports {

namespace {

// A gres.conf value: Slurm splits a line into NAME=value fields at blanks and starts a new
// entry at a newline, and '#' starts a comment, so text from the host keeps only the
// characters a name needs (docs/security.md, "Injection").
std::string gres_word(std::string_view text) {
    std::string word(text);
    for (char& c : word) {
        const bool safe =
            std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '.' || c == '-';
        c = safe ? c : '_';
    }
    return word;
}

// NodeName='s value: a name, or a Slurm hostlist ("gpu[01-04,07]") naming the nodes one file
// serves; its brackets and commas stay, blanks, '=', '#' and control characters do not.
std::string node_name_word(std::string_view text) {
    std::string word(text);
    for (char& c : word) {
        const bool hostlist = c == '[' || c == ']' || c == ',';
        c = hostlist ? c : gres_word(std::string_view(&c, 1)).front();
    }
    return word;
}

// Text from the host inside a comment line: a control character would end the comment.
std::string comment_text(std::string_view text) {
    std::string out(text);
    for (char& c : out) {
        c = static_cast<unsigned char>(c) < 0x20 || c == 0x7f ? ' ' : c;
    }
    return out;
}

std::string type_of(const ExportFacts& facts, const model::Gpu& gpu) {
    return facts.run.gres_type.empty() ? gres_type(gpu.name) : gres_word(facts.run.gres_type);
}

std::vector<model::Gpu> by_index(const model::Topology& topology) {
    auto gpus = topology.gpus;
    std::sort(
        gpus.begin(), gpus.end(), [](const auto& a, const auto& b) { return a.index < b.index; });
    return gpus;
}

// `Links=` for one GPU: NVLinks to each GPU of the node in index order, -1 for itself.
std::string links_of(const model::Topology& topology, const model::Gpu& gpu) {
    std::vector<std::string> entries;
    for (const auto& other : by_index(topology)) {
        entries.push_back(other.index == gpu.index
                              ? "-1"
                              : std::to_string(nvlinks_between(topology, gpu.index, other.index)));
    }
    return util::join(entries, ",");
}

// What slurm.conf's node line needs: Gres=gpu:<type>:<count> per type.
std::string slurm_conf_hint(const ExportFacts& facts, const model::Topology& topology) {
    std::map<std::string, int> counts;
    for (const auto& gpu : topology.gpus) {
        ++counts[type_of(facts, gpu)];
    }
    std::vector<std::string> gres;
    for (const auto& [type, count] : counts) {
        gres.push_back(fmt::format("gpu:{}:{}", type, count));
    }
    return fmt::format("# slurm.conf: GresTypes=gpu ; NodeName={} ... Gres={}\n",
                       node_name_word(facts.run.node_name),
                       util::join(gres, ","));
}

// Cores=: the logical cores of the GPU's CPU affinity; nullopt when a CPU of it has no known
// core (sysfs unreadable) or the affinity is unknown.
std::optional<std::string> cores_of(const ExportFacts& facts, const model::Gpu& gpu) {
    const auto ranges = util::parse_cpu_ranges(gpu.cpu_affinity);
    if (!ranges || facts.logical_cores.empty()) {
        return std::nullopt;
    }
    std::vector<int> cores;
    for (const auto& [lo, hi] : *ranges) {
        for (int cpu = lo; cpu <= hi; ++cpu) {
            const auto core = facts.logical_cores.find(cpu);
            if (core == facts.logical_cores.end()) {
                return std::nullopt;
            }
            cores.push_back(core->second);
        }
    }
    return util::format_cpu_list(cores);
}

// One GPU's line, after a comment for each field left out and why.
std::string gpu_line(const ExportFacts& facts,
                     const model::Topology& topology,
                     const model::Gpu& gpu) {
    std::string notes;
    std::string fields;
    if (const auto minor = facts.device_minors.find(gpu.index);
        minor != facts.device_minors.end()) {
        fields += fmt::format(" File=/dev/nvidia{}", minor->second);
    } else {
        notes += fmt::format(
            "# GPU {}: File= left out: its /dev/nvidia minor was not readable "
            "(/proc/driver/nvidia/gpus/<bus id>/information), and it need not be {}.\n",
            gpu.index,
            gpu.index);
    }
    if (const auto cores = cores_of(facts, gpu)) {
        fields += " Cores=" + *cores;
    } else {
        notes += fmt::format(
            "# GPU {}: Cores= left out: its CPU affinity ({}) or the CPUs' cores "
            "(/sys/devices/system/cpu/cpu*/topology) were not readable.\n",
            gpu.index,
            gpu.cpu_affinity.empty() ? "unknown" : comment_text(gpu.cpu_affinity));
    }
    return notes + fmt::format("NodeName={} AutoDetect=off Name=gpu Type={}{} Links={}\n",
                               node_name_word(facts.run.node_name),
                               type_of(facts, gpu),
                               fields,
                               links_of(topology, gpu));
}

std::string header(const ExportFacts& facts, const model::Topology& topology) {
    std::string out = fmt::format(
        "# gres.conf for {}, written by peergate {} from the NV# counts of nvidia-smi topo -m.\n",
        node_name_word(facts.run.node_name),
        facts.run.version);
    out += slurm_conf_hint(facts, topology);
    out +=
        "# AutoDetect=off: NVML autodetection counts no NVLinks through an NVSwitch, and Links= "
        "that disagree with it drain the node.\n"
        "# Cores= are Slurm's logical core numbers (lstopo's Core L#) of the CPUs nvidia-smi gives "
        "as the GPU's affinity.\n";
    return out;
}

}  // namespace

std::string gres_type(std::string_view gpu_name) {
    std::vector<std::string> words;
    for (auto word : util::split_whitespace(gpu_name)) {
        words.push_back(util::to_lower(word));
    }
    if (words.size() > 1 && words.front() == "nvidia") {
        words.erase(words.begin());
    }
    const std::string type = gres_word(util::join(words, "_"));
    return type.empty() ? "gpu" : type;
}

std::string export_gres(const ExportFacts& facts) {
    const model::Topology* topology = facts.doctor.discovery.described();
    if (topology == nullptr) {
        return "";
    }
    std::string out = header(facts, *topology);
    for (const auto& gpu : by_index(*topology)) {
        out += gpu_line(facts, *topology, gpu);
    }
    return out;
}

}  // namespace peergate::report::exports
