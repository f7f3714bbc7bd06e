// SPDX-License-Identifier: Apache-2.0
#include "policy/gate_types.hpp"

#include "util/strings.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace peergate::policy {

namespace {

// More GPUs than any chassis holds; a larger number is a typo, not an index.
constexpr int kMaxGpuIndex = 4095;

}  // namespace

std::string_view to_string(Profile profile) {
    switch (profile) {
        case Profile::llama_cpp:
            return "llama.cpp";
        case Profile::nccl:
            return "nccl";
        case Profile::vllm:
            return "vllm";
        case Profile::sglang:
            return "sglang";
        case Profile::all:
            return "all";
    }
    return "llama.cpp";
}

util::Expected<Profile> parse_profile(std::string_view text) {
    for (const Profile p :
         {Profile::llama_cpp, Profile::nccl, Profile::vllm, Profile::sglang, Profile::all}) {
        if (text == to_string(p)) {
            return p;
        }
    }
    return util::unexpected(
        util::ErrorCode::invalid_input,
        fmt::format("unknown profile '{}': expected llama.cpp, nccl, vllm, sglang or all", text));
}

util::Expected<Selection> Selection::parse(std::string_view text) {
    const std::string_view trimmed = util::trim(text);
    if (trimmed == "all") {
        return Selection::all();
    }
    if (trimmed.empty()) {
        return util::unexpected(util::ErrorCode::invalid_input,
                                "--gpus is empty: give nvidia-smi indices such as 0,1,3 or 'all'");
    }
    std::vector<int> ids;
    for (std::string_view field : util::split(trimmed, ',')) {
        const std::string_view id_text = util::trim(field);
        const auto id = util::parse_int<int>(id_text);
        if (!id || *id < 0 || *id > kMaxGpuIndex) {
            return util::unexpected(
                util::ErrorCode::invalid_input,
                fmt::format("--gpus '{}': '{}' is not a GPU index (expected nvidia-smi indices "
                            "such as 0,1,3, or 'all')",
                            text,
                            id_text));
        }
        if (std::find(ids.begin(), ids.end(), *id) != ids.end()) {
            return util::unexpected(util::ErrorCode::invalid_input,
                                    fmt::format("--gpus '{}': GPU {} is listed twice", text, *id));
        }
        ids.push_back(*id);
    }
    return Selection::list(std::move(ids));
}

std::optional<std::string> GateDecision::set_value(std::string_view name) const {
    for (const auto& s : set) {
        if (s.name == name) {
            return s.value;
        }
    }
    return std::nullopt;
}

bool GateDecision::unsets(std::string_view name) const {
    return std::any_of(
        unset.begin(), unset.end(), [&](const EnvRemoval& r) { return r.name == name; });
}

std::optional<std::string> GateDecision::kept_value(std::string_view name) const {
    for (const auto& k : kept) {
        if (k.name == name) {
            return k.value;
        }
    }
    return std::nullopt;
}

void GateDecision::apply_to(util::EnvMap& env) const {
    for (const auto& r : unset) {
        env.unset(r.name);
    }
    for (const auto& s : set) {
        env.set(s.name, s.value);
    }
}

}  // namespace peergate::policy
