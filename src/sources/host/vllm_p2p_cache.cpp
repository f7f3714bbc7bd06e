// SPDX-License-Identifier: Apache-2.0
#include "sources/host/vllm_p2p_cache.hpp"

#include "util/bounded_read.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <system_error>

namespace peergate::sources::host {

namespace {

constexpr std::string_view kPrefix = "gpu_p2p_access_cache_for_";
constexpr std::string_view kSuffix = ".json";
constexpr std::size_t kLargestFile = 1U << 20U;  // 8 GPUs write about 600 bytes

// Python's os.path.expanduser for the one form vLLM's variable takes: a leading "~/".
std::string expand_home(const std::string& path, const util::EnvMap& env) {
    if (path == "~" || path.starts_with("~/")) {
        return env.get("HOME").value_or("") + path.substr(1);
    }
    return path;
}

}  // namespace

std::string vllm_cache_root(const util::EnvMap& env) {
    if (auto root = env.get("VLLM_CACHE_ROOT"); root && !root->empty()) {
        return expand_home(*root, env);
    }
    return util::xdg_cache_dir(env, "vllm");
}

std::string sglang_cache_root(const util::EnvMap& env) {
    const auto home = env.get("HOME");
    return home && !home->empty() ? *home + "/.cache/sglang" : std::string();
}

std::optional<std::vector<std::string>> parse_vllm_p2p_cache(std::string_view text) {
    const auto doc = nlohmann::json::parse(text, nullptr, false);
    if (doc.is_discarded() || !doc.is_object()) {
        return std::nullopt;
    }
    std::vector<std::string> works;
    for (const auto& [key, value] : doc.items()) {
        if (!value.is_boolean()) {
            return std::nullopt;
        }
        if (value.get<bool>()) {
            works.push_back(key);
        }
    }
    return works;
}

std::vector<model::VllmP2pCache> read_vllm_p2p_caches(const std::string& root) {
    std::vector<model::VllmP2pCache> caches;
    std::error_code ec;
    if (root.empty() || !std::filesystem::is_directory(root, ec)) {
        return caches;
    }
    for (const auto& entry : std::filesystem::directory_iterator(root, ec)) {
        const std::string name = entry.path().filename().string();
        if (!name.starts_with(kPrefix) || !name.ends_with(kSuffix)) {
            continue;
        }
        // Regular files within the limit only; read_regular_file checks both on what it opens.
        const auto text = util::read_regular_file(entry.path().string(), kLargestFile);
        const auto works = text ? parse_vllm_p2p_cache(*text) : std::nullopt;
        if (works) {
            caches.push_back(model::VllmP2pCache{
                .path = entry.path().string(),
                .visible_devices =
                    name.substr(kPrefix.size(), name.size() - kPrefix.size() - kSuffix.size()),
                .says_works = *works});
        }
    }
    std::sort(
        caches.begin(), caches.end(), [](const auto& a, const auto& b) { return a.path < b.path; });
    return caches;
}

}  // namespace peergate::sources::host
