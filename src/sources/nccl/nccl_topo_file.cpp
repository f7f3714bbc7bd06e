// SPDX-License-Identifier: Apache-2.0
#include "sources/nccl/nccl_topo_file.hpp"

#include "sources/host/host_root.hpp"
#include "sources/nccl/nccl_topo_xml.hpp"
#include "util/bounded_read.hpp"

#include <filesystem>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

namespace peergate::sources::nccl {

namespace {

constexpr const char* kDefaultTopoFile = "/var/run/nvidia-topologyd/virtualTopology.xml";
// NCCL's reader holds a few thousand nodes; an NVL72 rack's dump is some 100 KiB.
constexpr std::size_t kLargestTopoFile = 16U << 20U;
constexpr std::size_t kLargestConfFile = 1U << 20U;

struct NamedFile {
    std::string read_at;  // where peergate reads it: a system file under the host root
    std::string path;     // the name NCCL will open
    std::string named_by;
};

// A configuration file that may set NCCL_TOPO_FILE; `system` files and the paths they name
// are read under the host root.
struct ConfFile {
    std::string path;
    std::string shown;
    bool system = false;
};

// Where NCCL_TOPO_FILE comes from, strongest first.
std::optional<NamedFile> named_topo_file(const util::EnvMap& env,
                                         const sources::host::HostRoot& root) {
    if (auto path = env.get("NCCL_TOPO_FILE")) {
        return NamedFile{*path, *path, "NCCL_TOPO_FILE"};
    }
    std::vector<ConfFile> confs;
    if (const auto file = env.get("NCCL_CONF_FILE"); file && !file->empty()) {
        confs.push_back({*file, "NCCL_CONF_FILE " + *file});
    } else if (const auto home = env.get("HOME"); home && !home->empty()) {
        confs.push_back({*home + "/.nccl.conf", *home + "/.nccl.conf"});
    }
    confs.push_back({root.resolve("/etc/nccl.conf"), "/etc/nccl.conf", true});
    for (const auto& conf : confs) {
        const auto text = util::read_regular_file(conf.path, kLargestConfFile);
        if (auto value = text ? nccl_conf_value(*text, "NCCL_TOPO_FILE") : std::nullopt) {
            const bool under_root = conf.system && value->starts_with('/');
            return NamedFile{under_root ? root.resolve(*value) : *value, *value, conf.shown};
        }
    }
    if (root.exists(kDefaultTopoFile)) {
        return NamedFile{root.resolve(kDefaultTopoFile), kDefaultTopoFile, "NCCL's default path"};
    }
    return std::nullopt;
}

}  // namespace

std::optional<std::string> nccl_conf_value(std::string_view text, std::string_view name) {
    while (!text.empty()) {
        const auto end = text.find('\n');
        std::string_view line = text.substr(0, end);
        text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
        if (line.ends_with('\r')) {
            line.remove_suffix(1);
        }
        const auto eq = line.find('=');
        if (line.starts_with('#') || eq == std::string_view::npos) {
            continue;
        }
        if (line.substr(0, eq) == name) {
            return std::string(line.substr(eq + 1));
        }
    }
    return std::nullopt;
}

std::optional<model::NcclTopoFile> read_nccl_topo_file(const util::EnvMap& env,
                                                       const std::string& host_root) {
    const auto named = named_topo_file(env, sources::host::HostRoot(host_root));
    if (!named || named->path.empty()) {
        return std::nullopt;  // NCCL opens nothing for an empty name
    }
    model::NcclTopoFile file{.path = named->path, .named_by = named->named_by};
    std::error_code ec;
    file.exists = std::filesystem::exists(named->read_at, ec);
    const auto text = util::read_regular_file(named->read_at, kLargestTopoFile);
    if (!text) {
        file.unreadable = file.exists ? text.error().message : std::string();
        return file;
    }
    auto gpus = sources::nccl::parse_nccl_topo_xml(*text);
    if (!gpus) {
        file.malformed = gpus.error().message;
        return file;
    }
    file.gpus = std::move(*gpus);
    return file;
}

}  // namespace peergate::sources::nccl
