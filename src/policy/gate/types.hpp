// SPDX-License-Identifier: Apache-2.0
// The P2P gate's input and output as plain values (docs/gate-rules.md §1, §2, §4, §5).
// decide() maps one GateInput to one GateDecision and touches nothing else.
#pragma once

#include "model/gpu.hpp"
#include "model/host_facts.hpp"
#include "model/nccl_topo_file.hpp"
#include "model/pci_address.hpp"
#include "model/topology.hpp"
#include "policy/gate/vllm_p2p_cache.hpp"
#include "util/env_map.hpp"
#include "util/expected.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace peergate::policy::gate {

// Which launcher the environment is planned for (`--for`).
enum class Profile { llama_cpp, nccl, vllm, sglang, all };

// "llama.cpp", "nccl", "vllm", "sglang", "all".
std::string_view to_string(Profile profile);

// Parses a `--for` value; the error lists the known profiles.
util::Expected<Profile> parse_profile(std::string_view text);

// What the user asked for with --gpus: nothing (the inherited environment decides),
// every GPU, or a list of nvidia-smi indices taken verbatim.
struct Selection {
    enum class Kind { inherit, all, list };
    Kind kind = Kind::inherit;
    std::vector<int> ids;  // Kind::list only, in the order given

    static Selection inherit() { return {}; }

    static Selection all() { return {Kind::all, {}}; }

    static Selection list(std::vector<int> ids) { return {Kind::list, std::move(ids)}; }

    // "0,1,3" or "all" (model/gpu_list.hpp: the one --gpus grammar).
    static util::Expected<Selection> parse(std::string_view text);

    bool is_explicit() const { return kind != Kind::inherit; }

    friend bool operator==(const Selection&, const Selection&) = default;
};

// A cached integrity-probe verdict for this boot (docs/gate-rules.md §6); filled later by the
// verdict cache. A pass makes PEERGATE_FORCE_P2P unnecessary; a failure vetoes.
struct ProbeVerdict {
    bool passed = false;
    std::string detail;  // "probe of 2026-11-29 on this boot: 12/12 pairs intact"
    // Pair-level verdict from the on-disk cache: with PEERGATE_TRUST_PROBE=1 it vouches only
    // for the ordered pairs in passed_pairs, those that passed the concurrent mode on the
    // direct path; `passed` is then ignored and a selection passes when all its pairs are
    // listed. A selected pair in lost_pairs (data lost on this boot) vetoes, trusted or not.
    bool pair_level = false;
    std::vector<std::pair<int, int>> passed_pairs;
    std::vector<std::pair<int, int>> lost_pairs;
};

// The CUDA driver library loaded in the identity join's helper and cuInit failed: no CUDA
// program the gate launches can start (docs/gate-rules.md §2, rule cuda_unavailable).
struct CudaInitFailure {
    int status = 0;      // the CUresult: 802 CUDA_ERROR_SYSTEM_NOT_READY, 100 NO_DEVICE ...
    std::string detail;  // the driver's words ("cuInit failed: 802 CUDA_ERROR_SYSTEM_NOT_READY")

    friend bool operator==(const CudaInitFailure&, const CudaInitFailure&) = default;
};

struct GateInput {
    // Host GPUs by nvidia-smi index, with names. Empty: taken from the topology.
    std::vector<model::Gpu> gpus;
    // The interconnect matrix with its source (nvml, nvidia-smi, file); nullopt = unreadable.
    std::optional<model::Topology> topology;
    std::string topology_reason;  // why there is no topology
    util::EnvMap env;             // the parent environment the child inherits
    Selection selection;
    model::HostFacts host;
    Profile profile = Profile::llama_cpp;
    // The launcher applies CUDA_DEVICE_ORDER=PCI_BUS_ID and CUDA_VISIBLE_DEVICES=<LIST> for
    // an explicit selection (gate, exec). false: the caller keeps the inherited order.
    bool pin_selection = true;
    std::optional<ProbeVerdict> probe;
    // The ordered pairs a valid cache passed for the profile that PEERGATE_TRUST_PROBE=1 would
    // let vouch, where it is not set: the gate says so only where trusting them would change
    // its decision (GateDecision::trust_would_allow).
    std::vector<std::pair<int, int>> untrusted_probe_passes;
    // A verdict cache that is doubt (CacheVerdict::doubt): PEERGATE_FORCE_P2P is refused
    // while it stands (docs/gate-rules.md §2, rule cache_untrusted).
    std::optional<std::string> cache_doubt;
    // Identity join seam (docs/gate-rules.md §4 beyond): the PCI addresses of the GPUs the child
    // will see, in its CUDA order, as a helper process enumerated them under the child's
    // environment. nullopt: no CUDA driver answer; the index rules of §4 apply.
    std::optional<std::vector<model::PciAddress>> child_visible;
    // Set when the helper's CUDA driver loaded and did not initialise: doubt, never the
    // index rules' fallback (docs/gate-rules.md §2).
    std::optional<CudaInitFailure> cuda_init_failure;
    // vLLM's cached P2P answers (read for the vllm and all profiles).
    std::vector<VllmP2pCache> vllm_p2p_caches;
    // SGLang's, in the same format (read for the sglang and all profiles).
    std::vector<VllmP2pCache> sglang_p2p_caches;
    // The NCCL topology file the child's NCCL will read (nccl and all profiles); nullopt: none.
    std::optional<model::NcclTopoFile> nccl_topo_file;
    // exec: the command about to run, read (never changed) for flags a profile cares about.
    std::vector<std::string> child_argv;
    // Failures met while gathering this input (a source that errored): each one vetoes.
    std::vector<std::string> failures;
    // What the gatherer wants reported with the decision (e.g. tiers that disagree).
    std::vector<std::string> notes;
};

// Whether any CUDA program can start on this node (policy/gate/node_usability.hpp): false
// only on the driver's word that none can (docs/gate-rules.md §2, cuda_unavailable), whatever
// rule decided P2P; true is not proof that the GPUs work.
struct NodeUsability {
    bool usable = true;
    std::string rule;    // "cuda_unavailable" where not usable; empty where usable
    std::string reason;  // why not, and what to do; empty where usable

    friend bool operator==(const NodeUsability&, const NodeUsability&) = default;
};

// One variable peergate sets, with why.
struct EnvSetting {
    std::string name;
    std::string value;
    std::string reason;

    friend bool operator==(const EnvSetting&, const EnvSetting&) = default;
};

// One variable removed from the child's environment, with why.
struct EnvRemoval {
    std::string name;
    std::string reason;

    friend bool operator==(const EnvRemoval&, const EnvRemoval&) = default;
};

struct GateDecision {
    Profile profile = Profile::llama_cpp;
    std::vector<int> selection;    // the nvidia-smi indices gated
    std::string selection_source;  // "gpus", "all", "cuda_visible_devices", "host"
    bool p2p = false;
    std::string veto;             // empty when p2p; names the pair and its label, or the switch
    std::string rule;             // id of the rule that decided, e.g. "every_pair_nvlink"
    std::string reason;           // why, in one line: the veto, or what allowed P2P
    std::vector<EnvSetting> set;  // in the order they were decided
    std::vector<EnvRemoval> unset;
    std::vector<EnvSetting> kept;  // values the user set and peergate left alone
    std::vector<std::string> warnings;
    model::TopologySource topology_source = model::TopologySource::none;
    model::IommuMode iommu = model::IommuMode::unknown;
    // P2P is vetoed, and trusting the cached probe's passes (PEERGATE_TRUST_PROBE=1) would allow
    // it for this selection: the one place the trust hint may be given.
    bool trust_would_allow = false;
    NodeUsability node;  // `gate` exits 3, and exec and watch start nothing, where not usable

    // The value set for `name`, if any.
    std::optional<std::string> set_value(std::string_view name) const;
    bool unsets(std::string_view name) const;
    std::optional<std::string> kept_value(std::string_view name) const;

    // Applies set and unset to `env` (the child's environment).
    void apply_to(util::EnvMap& env) const;
};

}  // namespace peergate::policy::gate
