// SPDX-License-Identifier: Apache-2.0
#include "policy/gate/types.hpp"

#include "model/gpu_list.hpp"
#include "util/strings.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace peergate::policy::gate {

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
    auto ids = model::parse_gpu_list(text);
    if (!ids) {
        return util::unexpected(ids.error());
    }
    return *ids ? Selection::list(std::move(**ids)) : Selection::all();
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

}  // namespace peergate::policy::gate
