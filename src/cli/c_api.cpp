// SPDX-License-Identifier: Apache-2.0
// The C API (include/peergate/peergate_c.h): one entry point that returns the
// peergate.gate/v1 document, for ctypes and other FFIs.
#include "cli/gate_pipeline.hpp"
#include "cli/module_location.hpp"
#include "cli/seams_resolver.hpp"
#include "peergate/peergate_c.h"
#include "report/gate_render.hpp"

#include <cstring>
#include <exception>
#include <string>

namespace {

// Copies `text` with its NUL when it fits; else the negative size needed.
int write_out(const std::string& text, char* out, size_t out_size, int status) {
    if (text.size() + 1 > out_size) {
        if (out != nullptr && out_size > 0) {
            out[0] = '\0';
        }
        return -static_cast<int>(text.size() + 1);
    }
    std::memcpy(out, text.c_str(), text.size() + 1);
    return status;
}

std::string error_json(const std::string& message) {
    nlohmann::ordered_json doc;
    doc["schema"] = "peergate.gate/v1";
    doc["error"] = message;
    return doc.dump();
}

int gate_json(
    const char* const* envp, const char* gpus, const char* profile, char* out, size_t out_size) {
    peergate::cli::Invocation inv;
    inv.env = peergate::util::EnvMap::from_envp(envp);
    auto request = peergate::cli::parse_gate_request(
        gpus != nullptr ? std::optional<std::string>(gpus) : std::nullopt,
        profile != nullptr ? profile : "llama.cpp");
    if (!request) {
        return write_out(error_json(request.error().message), out, out_size, 2);
    }
    request->identity_helper = peergate::cli::installed_peergate();  // for the identity join
    peergate::policy::GateDecision decision;
    if (auto resolved = peergate::cli::resolve_seams(inv); !resolved) {
        peergate::policy::GateInput input;
        input.env = inv.env;
        input.selection = request->selection;
        input.profile = request->profile;
        decision = peergate::policy::failed_decision(std::move(input), resolved.error().message);
    } else {
        decision = peergate::cli::decide_for_host(inv.seams, inv.env, *request);
    }
    return write_out(
        peergate::report::gate_to_json(decision).dump(), out, out_size, decision.p2p ? 0 : 1);
}

}  // namespace

extern "C" int peergate_gate_json(
    const char* const* envp, const char* gpus, const char* profile, char* out, size_t out_size) {
    try {
        return gate_json(envp, gpus, profile, out, out_size);
    } catch (const std::exception& e) {
        return write_out(error_json(std::string("internal error: ") + e.what()), out, out_size, 2);
    } catch (...) {
        return write_out(error_json("internal error"), out, out_size, 2);
    }
}
