// SPDX-License-Identifier: Apache-2.0
// The C API (include/peergate/peergate_c.h): one entry point that returns the
// peergate.gate/v1 document, for ctypes and other FFIs.
#include "peergate/peergate_c.h"
#include "pipeline/gate.hpp"
#include "pipeline/launch_place.hpp"
#include "pipeline/module_location.hpp"
#include "pipeline/seams.hpp"
#include "report/gate/render.hpp"

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

// The --gpus text the decision is for: `gpus` as given, or the best `place` GPUs among it.
peergate::util::Expected<std::optional<std::string>> selection_text(
    const peergate::pipeline::Context& ctx, const char* gpus, int place, const char* profile) {
    std::optional<std::string> given =
        gpus != nullptr ? std::optional<std::string>(gpus) : std::nullopt;
    if (place == 0) {
        return given;
    }
    auto placed = peergate::pipeline::place_launch(
        ctx, given, place, profile, peergate::pipeline::installed_peergate());
    if (!placed) {
        return peergate::util::unexpected(placed.error());
    }
    return std::optional<std::string>(placed->gpus);
}

int gate_json(const char* const* envp,
              const char* gpus,
              int place,
              const char* profile,
              char* out,
              size_t out_size) {
    peergate::pipeline::Context ctx;
    ctx.env = peergate::util::EnvMap::from_envp(envp);
    ctx.output.quiet = true;  // a library prints nothing
    profile = profile != nullptr ? profile : "llama.cpp";
    const auto resolved = peergate::pipeline::resolve_seams(ctx);
    if (!resolved && place != 0) {
        return write_out(error_json("place: " + resolved.error().message), out, out_size, 2);
    }
    auto text = selection_text(ctx, gpus, place, profile);
    if (!text) {
        return write_out(error_json(text.error().message), out, out_size, 2);
    }
    auto request = peergate::pipeline::parse_gate_request(*text, profile);
    if (!request) {
        return write_out(error_json(request.error().message), out, out_size, 2);
    }
    request->identity_helper = peergate::pipeline::installed_peergate();  // for the identity join
    peergate::policy::gate::GateDecision decision;
    if (!resolved) {
        peergate::policy::gate::GateInput input;
        input.env = ctx.env;
        input.selection = request->selection;
        input.profile = request->profile;
        decision =
            peergate::policy::gate::failed_decision(std::move(input), resolved.error().message);
    } else {
        decision = peergate::pipeline::decide_for_host(ctx.seams, ctx.env, *request);
    }
    return write_out(
        peergate::report::gate::gate_to_json(decision).dump(), out, out_size, decision.p2p ? 0 : 1);
}

// Never lets an exception cross into C.
template <typename Call>
int guarded(Call call, char* out, size_t out_size) {
    try {
        return call();
    } catch (const std::exception& e) {
        return write_out(error_json(std::string("internal error: ") + e.what()), out, out_size, 2);
    } catch (...) {
        return write_out(error_json("internal error"), out, out_size, 2);
    }
}

}  // namespace

extern "C" int peergate_gate_json(
    const char* const* envp, const char* gpus, const char* profile, char* out, size_t out_size) {
    return guarded([&] { return gate_json(envp, gpus, 0, profile, out, out_size); }, out, out_size);
}

extern "C" int peergate_gate_place_json(const char* const* envp,
                                        const char* gpus,
                                        int place,
                                        const char* profile,
                                        char* out,
                                        size_t out_size) {
    return guarded(
        [&] { return gate_json(envp, gpus, place, profile, out, out_size); }, out, out_size);
}
