// SPDX-License-Identifier: Apache-2.0
// peergate's P2P gate for programs that launch llama.cpp, vLLM or NCCL jobs themselves.
//
//   peergate::Environment env = {{"PATH", "/usr/bin:/bin"}};   // what the child would inherit
//   peergate::GateDecision d = peergate::apply(env, {.selection = peergate::Selection::list({0,
//   1})});
//   // env now holds exactly what the child should get; d says why (d.veto, d.set, d.kept ...)
//
// apply() discovers this host itself through the default seams (NVML, else `nvidia-smi topo
// -m`; /sys and /proc under "/"), honouring PEERGATE_NVML_LIB, PEERGATE_NVIDIA_SMI,
// PEERGATE_HOST_ROOT and PEERGATE_SIMULATE in `env`, and never throws: a failure while
// deciding vetoes P2P with the reason. See docs/gate-profiles.md for every variable it may set
// and docs/c-api.md for the C entry points. Link with -lpeergate (pkg-config peergate, or
// CMake's find_package(peergate) and the target peergate::peergate).
//
// Self-contained: this header needs only the C++20 standard library.
#pragma once

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

// What libpeergate.so exports (it is built with hidden visibility).
#ifndef PEERGATE_API
#define PEERGATE_API __attribute__((visibility("default")))
#endif

namespace peergate {

// The environment a child inherits: name -> value.
using Environment = std::map<std::string, std::string, std::less<>>;

// Which launcher's variables the plan covers.
enum class Profile { llama_cpp, nccl, vllm, sglang, all };

// The GPUs a launch is gated for.
struct Selection {
    enum class Kind {
        inherit,  // what the inherited CUDA_VISIBLE_DEVICES exposes, else every GPU
        all,      // every GPU of the host
        list,     // the nvidia-smi indices in `ids`
    };
    Kind kind = Kind::inherit;
    std::vector<int> ids;

    static Selection all() { return Selection{Kind::all, {}}; }

    static Selection list(std::vector<int> ids) { return Selection{Kind::list, std::move(ids)}; }
};

// One variable peergate sets, or keeps as the user set it, with why.
struct EnvSetting {
    std::string name;
    std::string value;
    std::string reason;
};

// One variable removed from the child's environment, with why.
struct EnvRemoval {
    std::string name;
    std::string reason;
};

struct GateDecision {
    Profile profile = Profile::llama_cpp;
    std::vector<int> selection;    // the nvidia-smi indices gated
    std::string selection_source;  // "gpus", "all", "cuda_visible_devices", "host", ...
    bool p2p = false;
    std::string veto;  // empty when p2p; names the pair and its label, or the switch
    std::string rule;  // id of the rule that decided, e.g. "every_pair_nvlink"
    std::string reason;
    std::vector<EnvSetting> set;  // in the order they were decided
    std::vector<EnvRemoval> unset;
    std::vector<EnvSetting> kept;  // values the user set and peergate left alone
    std::vector<std::string> warnings;
    std::string topology_source;  // as in peergate.gate/v1: "nvml", "nvidia-smi", "none", ...
    std::string iommu;            // as in peergate.gate/v1: "translating", "off", "unknown", ...
    std::string json;             // the whole peergate.gate/v1 document

    // The value set for `name`, if any.
    std::optional<std::string> set_value(std::string_view name) const {
        for (const auto& s : set) {
            if (s.name == name) {
                return s.value;
            }
        }
        return std::nullopt;
    }

    bool unsets(std::string_view name) const {
        return std::any_of(
            unset.begin(), unset.end(), [&](const EnvRemoval& r) { return r.name == name; });
    }
};

struct ApplyOptions {
    Selection selection;                   // default: the inherited environment decides
    Profile profile = Profile::llama_cpp;  // which launcher's variables to plan
    // > 0: decide for the best `place` GPUs among `selection` (inherited: among those the
    // environment's CUDA_VISIBLE_DEVICES exposes, else all), as `peergate gate --place`
    // picks them; the decision's selection names them. A placement that fails is a veto.
    int place = 0;
};

// Discovers this host, decides for the environment `env` and applies the plan to it:
// variables set, off-valued GGML_CUDA_P2P removed, user values kept, and for an explicit
// selection CUDA_DEVICE_ORDER=PCI_BUS_ID and CUDA_VISIBLE_DEVICES=<LIST>.
PEERGATE_API GateDecision apply(Environment& env, const ApplyOptions& options = {});

}  // namespace peergate
