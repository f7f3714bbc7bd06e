// SPDX-License-Identifier: Apache-2.0
#include "cli/nccl_log_input.hpp"

#include "sources/smi/topo_m_parser.hpp"
#include "util/atomic_file.hpp"
#include "util/json_read.hpp"
#include "util/strings.hpp"

#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

namespace peergate::cli {

namespace {

constexpr std::size_t kChunkBytes = std::size_t{1} << 20;

struct FileCloser {
    void operator()(std::FILE* file) const {
        if (file != nullptr && file != stdin) {
            std::fclose(file);
        }
    }
};

util::Unexpected invalid(const std::string& message) {
    return util::unexpected(util::ErrorCode::invalid_input, "topology JSON: " + message);
}

util::Expected<model::Gpu> gpu_from_json(const nlohmann::json& entry) {
    const auto index = entry.is_object() && entry.contains("index")
                           ? util::json_integer<int>(entry["index"])
                           : std::nullopt;
    if (!index || *index < 0) {
        return invalid("every gpus entry needs an \"index\" that is an integer from 0");
    }
    model::Gpu gpu;
    gpu.index = *index;
    if (entry.contains("pci_bus_id") && entry["pci_bus_id"].is_string()) {
        if (auto pci = model::PciAddress::parse(entry["pci_bus_id"].get<std::string>())) {
            gpu.pci = *pci;
        }
    }
    if (entry.contains("name") && entry["name"].is_string()) {
        gpu.name = entry["name"].get<std::string>();
    }
    return gpu;
}

util::Expected<std::vector<model::LinkLabel>> row_from_json(const nlohmann::json& row) {
    if (!row.is_array()) {
        return invalid("matrix rows must be arrays");
    }
    std::vector<model::LinkLabel> labels;
    for (const auto& cell : row) {
        auto label =
            cell.is_string() ? model::LinkLabel::parse(cell.get<std::string>()) : std::nullopt;
        if (!label) {
            return invalid("matrix cell is not a topo -m token: " + cell.dump());
        }
        labels.push_back(*label);
    }
    return labels;
}

struct FdCloser {
    int fd;

    ~FdCloser() { ::close(fd); }
};

// Parses `path` in pieces on several threads when it is a regular file large enough;
// false when it is not (or cannot be opened: the one-pass reader then says why).
util::Expected<bool> stream_in_pieces(const std::string& path,
                                      sources::nccl::NcclLogParser& parser,
                                      const NcclReadOptions& options) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return false;
    }
    const FdCloser closer{fd};

    struct stat info {};

    if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
        return false;
    }
    const auto size = static_cast<std::uint64_t>(info.st_size);
    const unsigned pieces = piece_count(size, options);
    if (pieces < 2) {
        return false;
    }
    auto cuts = line_cuts(fd, size, pieces);
    util::Expected<void> parsed =
        cuts ? parse_pieces(fd, *cuts, parser)
             : util::Expected<void>(util::unexpected(std::move(cuts).error()));
    parser.end_input();
    if (!parsed) {
        return util::unexpected(util::ErrorCode::io, path + ": " + parsed.error().message);
    }
    return true;
}

}  // namespace

util::Expected<void> stream_log_file(const std::string& path,
                                     sources::nccl::NcclLogParser& parser,
                                     const NcclReadOptions& options) {
    if (path != "-") {
        auto in_pieces = stream_in_pieces(path, parser, options);
        PEERGATE_TRY(in_pieces);
        if (*in_pieces) {
            return {};
        }
    }
    std::unique_ptr<std::FILE, FileCloser> file(path == "-" ? stdin
                                                            : std::fopen(path.c_str(), "rb"));
    if (!file) {
        return util::unexpected(util::ErrorCode::io, path + ": " + std::strerror(errno));
    }
    std::vector<char> buffer(kChunkBytes);
    while (true) {
        const std::size_t got = std::fread(buffer.data(), 1, buffer.size(), file.get());
        if (got > 0) {
            parser.feed(std::string_view(buffer.data(), got));
        }
        if (got < buffer.size()) {
            break;
        }
    }
    const bool failed = std::ferror(file.get()) != 0;
    parser.end_input();
    if (failed) {
        return util::unexpected(util::ErrorCode::io, path + ": read error");
    }
    return {};
}

util::Expected<model::Topology> parse_topology_json(std::string_view text) {
    const auto doc = nlohmann::json::parse(text, nullptr, false);
    if (doc.is_discarded() || !doc.is_object()) {
        return invalid("not a JSON object");
    }
    if (!doc.contains("schema") || doc["schema"] != "peergate.topology/v1") {
        return invalid("schema is not peergate.topology/v1");
    }
    if (!doc.contains("gpus") || !doc["gpus"].is_array() || !doc.contains("matrix") ||
        !doc["matrix"].is_array()) {
        return invalid("\"gpus\" and \"matrix\" arrays are required");
    }
    model::Topology topology;
    topology.source = model::TopologySource::file;
    for (const auto& entry : doc["gpus"]) {
        auto gpu = gpu_from_json(entry);
        PEERGATE_TRY(gpu);
        topology.gpus.push_back(std::move(*gpu));
    }
    for (const auto& row : doc["matrix"]) {
        auto labels = row_from_json(row);
        PEERGATE_TRY(labels);
        topology.matrix.push_back(std::move(*labels));
    }
    PEERGATE_TRY(model::check_matrix(topology));
    return topology;
}

util::Expected<model::Topology> read_topology_for_nccl(const std::string& path) {
    auto text = util::read_file(path);
    if (!text) {
        return util::unexpected(std::move(text).error());
    }
    const auto trimmed = util::trim(*text);
    auto topology = !trimmed.empty() && trimmed.front() == '{' ? parse_topology_json(trimmed)
                                                               : sources::smi::parse_topo_m(*text);
    if (!topology) {
        return util::unexpected(topology.error().code, path + ": " + topology.error().message);
    }
    topology->source = model::TopologySource::file;
    topology->provenance = path;
    return topology;
}

}  // namespace peergate::cli
