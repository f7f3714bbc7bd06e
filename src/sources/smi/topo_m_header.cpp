// SPDX-License-Identifier: Apache-2.0
#include "sources/smi/topo_m_header.hpp"

#include "model/link_label.hpp"
#include "util/strings.hpp"

#include <fmt/format.h>

namespace peergate::sources::smi::topo_m {

namespace {

// More GPU columns than any host has: a header this wide is garbage, and the n x n
// matrix it would ask for must not be allocated.
constexpr std::size_t kMaxGpus = 1024;

// The same for the NIC and affinity columns, whose names are checked against each other.
constexpr std::size_t kMaxOtherColumns = 1024;

// The multi-word headers nvidia-smi prints after the GPU and NIC columns, found by their
// words wherever they sit. One cell per column in every GPU row.
struct AffinityHeader {
    Column column;
    std::string_view name;
    std::vector<std::string_view> words;
};

const std::vector<AffinityHeader>& affinity_headers() {
    static const std::vector<AffinityHeader> headers{
        {Column::cpu_affinity, "CPU Affinity", {"CPU", "Affinity"}},
        {Column::numa_affinity, "NUMA Affinity", {"NUMA", "Affinity"}},
        {Column::gpu_numa_id, "GPU NUMA ID", {"GPU", "NUMA", "ID"}},
    };
    return headers;
}

// The words of those headers: one of them outside a whole header is a garbled header, not a
// NIC named "Affinity".
bool is_affinity_word(std::string_view token) {
    return token == "CPU" || token == "NUMA" || token == "Affinity" || token == "ID" ||
           token == "GPU";
}

// The affinity header starting at tokens[i], if the words there spell one.
const AffinityHeader* affinity_header_at(const std::vector<std::string_view>& tokens,
                                         std::size_t i) {
    for (const auto& header : affinity_headers()) {
        const auto& words = header.words;
        if (i + words.size() <= tokens.size() &&
            std::equal(words.begin(), words.end(), tokens.begin() + static_cast<long>(i))) {
            return &header;
        }
    }
    return nullptr;
}

// One column after the GPU run, starting at tokens[i]; returns how many tokens it took.
util::Expected<std::size_t> read_other_column(const std::vector<std::string_view>& tokens,
                                              std::size_t i,
                                              Header& header) {
    const auto where = [&](std::string_view what) {
        return unreadable(at_line(header.line, fmt::format("header: {}", what)));
    };
    const AffinityHeader* affinity = affinity_header_at(tokens, i);
    std::string name = affinity ? std::string(affinity->name) : std::string(tokens[i]);
    const Column column = affinity ? affinity->column : Column::nic;
    if (!affinity && gpu_token(tokens[i])) {
        return where(fmt::format("column {} after the non-GPU columns", tokens[i]));
    }
    if (!affinity && is_affinity_word(tokens[i])) {
        return where(fmt::format(
            "'{}' is not part of a CPU Affinity, NUMA Affinity or GPU NUMA ID column", tokens[i]));
    }
    if (!affinity && model::LinkLabel::parse(tokens[i])) {
        return where(fmt::format("'{}' is a link label, not a NIC name", tokens[i]));
    }
    if (std::find(header.names.begin(), header.names.end(), name) != header.names.end()) {
        return where(fmt::format("column {} appears twice", name));
    }
    header.others.push_back(column);
    header.names.push_back(std::move(name));
    return affinity ? affinity->words.size() : 1U;
}

}  // namespace

util::Unexpected unreadable(std::string_view why) {
    return util::unexpected(util::ErrorCode::invalid_input,
                            "nvidia-smi topo -m output is unreadable: " + std::string(why));
}

std::string at_line(std::size_t line, std::string_view what) {
    return fmt::format("line {}: {}", line, what);
}

std::optional<int> gpu_token(std::string_view token) {
    if (token.size() < 4 || token.substr(0, 3) != "GPU" || token[3] < '0' || token[3] > '9') {
        return std::nullopt;
    }
    return util::parse_int<int>(token.substr(3));
}

std::vector<std::string> Header::nic_names() const {
    std::vector<std::string> out;
    for (std::size_t j = 0; j < others.size(); ++j) {
        if (others[j] == Column::nic) {
            out.push_back(names[j]);
        }
    }
    return out;
}

std::optional<std::size_t> Header::nic_of(std::string_view token) const {
    const auto nics = nic_names();
    const auto it = std::find(nics.begin(), nics.end(), token);
    if (it == nics.end()) {
        return std::nullopt;
    }
    return static_cast<std::size_t>(it - nics.begin());
}

util::Expected<std::optional<Header>> read_header(const std::vector<std::string_view>& tokens,
                                                  std::size_t line) {
    Header header;
    header.line = line;
    std::size_t i = 0;
    for (; i < tokens.size(); ++i) {
        const auto gpu = gpu_token(tokens[i]);
        if (!gpu) {
            break;
        }
        header.gpus.push_back(*gpu);
    }
    if (header.gpus.size() < 2) {
        return std::optional<Header>();
    }
    while (i < tokens.size()) {
        if (header.others.size() >= kMaxOtherColumns) {
            return unreadable(at_line(
                line,
                fmt::format("header: more than {} NIC and affinity columns (not topo -m output?)",
                            kMaxOtherColumns)));
        }
        const auto taken = read_other_column(tokens, i, header);
        if (!taken) {
            return util::unexpected(taken.error());
        }
        i += *taken;
    }
    return std::optional<Header>(std::move(header));
}

util::Expected<void> check_header(const Header& header) {
    if (header.gpus.size() > kMaxGpus) {
        return unreadable(fmt::format("header: {} GPU columns, more than {} (not topo -m output?)",
                                      header.gpus.size(),
                                      kMaxGpus));
    }
    std::vector<int> sorted = header.gpus;
    std::sort(sorted.begin(), sorted.end());
    if (const auto dup = std::adjacent_find(sorted.begin(), sorted.end()); dup != sorted.end()) {
        return unreadable(fmt::format("header: column GPU{} appears twice", *dup));
    }
    return {};
}

}  // namespace peergate::sources::smi::topo_m
