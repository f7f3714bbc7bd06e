// SPDX-License-Identifier: Apache-2.0
// The gate pipeline shared by `gate`, `exec`, the library API and the C API:
// gather the host's facts -> decide -> (the caller renders or applies).
#pragma once

#include "model/discovery.hpp"
#include "policy/gate/gate.hpp"
#include "util/env_map.hpp"
#include "util/expected.hpp"
#include "util/seams.hpp"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace peergate::pipeline {

struct GateRequest {
    policy::gate::Selection selection;
    policy::gate::Profile profile = policy::gate::Profile::llama_cpp;
    // A peergate binary to run `cuda-visible` in for the identity join (docs/gate-rules.md §4
    // "beyond"): `gate` and `exec` pass themselves (/proc/self/exe). The library and C APIs
    // run inside other programs, whose /proc/self/exe is not peergate, so they pass the
    // peergate installed beside libpeergate.so (installed_peergate()). Empty: no join, and
    // the index rules of §4 apply.
    std::string identity_helper;
    // exec: the command it will run (the vllm profile looks for --disable-custom-all-reduce).
    std::vector<std::string> child_argv;
};

// Parses --gpus (nullopt: not given) and --for; the error says what was wrong.
util::Expected<GateRequest> parse_gate_request(const std::optional<std::string>& gpus,
                                               const std::string& profile);

// Reads the topology tiers, the host facts (IOMMU, hypervisor) and the GPU names into a
// GateInput. A tier that fails is an unreadable topology, not an error.
policy::gate::GateInput gather_gate_input(const util::Seams& seams,
                                          const util::EnvMap& env,
                                          const GateRequest& request);

// The same from a discovery already made (export decides on what its doctor read, so the
// two never describe different reads of the host).
policy::gate::GateInput gate_input_from(const model::Discovery& discovery,
                                        const util::Seams& seams,
                                        const util::EnvMap& env,
                                        const GateRequest& request);

// Runs `gather` and decides. Whatever goes wrong while deciding (an exception from a
// source or a parser) becomes a veto with the reason: deciding never blocks a launch.
policy::gate::GateDecision decide_safely(const std::function<policy::gate::GateInput()>& gather,
                                         const util::EnvMap& env,
                                         const GateRequest& request);

// gather_gate_input + decide_safely for this host; `gathered`, when given, receives the input
// the decision read (exec --bind-cpus wants its GPUs' CPU affinity).
policy::gate::GateDecision decide_for_host(const util::Seams& seams,
                                           const util::EnvMap& env,
                                           const GateRequest& request,
                                           policy::gate::GateInput* gathered = nullptr);

// decide_for_host for a launch the user named the GPUs of (gate, exec, watch, the C API): an
// explicit selection that names a GPU the host does not have is an error (invalid_input) that
// names it and the host's GPUs, not a veto beside a plan for that list (issue 52). Where the
// host's GPUs cannot be read, nothing can be called absent: it decides, and vetoes, as before.
util::Expected<policy::gate::GateDecision> decide_for_launch(
    const util::Seams& seams,
    const util::EnvMap& env,
    const GateRequest& request,
    policy::gate::GateInput* gathered = nullptr);

}  // namespace peergate::pipeline
