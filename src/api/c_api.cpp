// SPDX-License-Identifier: Apache-2.0
// The C API (include/peergate/peergate_c.h): the gate's peergate.gate/v1, the topology's
// peergate.topology/v1 and the placement's peergate.placement/v1 documents, for ctypes and
// other FFIs.
#include "peergate/peergate_c.h"
#include "pipeline/gate.hpp"
#include "pipeline/launch_place.hpp"
#include "pipeline/module_location.hpp"
#include "pipeline/placement.hpp"
#include "pipeline/seams.hpp"
#include "pipeline/topology_view.hpp"
#include "report/gate/render.hpp"
#include "report/placement/json.hpp"
#include "report/topology/json.hpp"

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

std::string error_json(const std::string& message, const char* schema = "peergate.gate/v1") {
    nlohmann::ordered_json doc;
    doc["schema"] = schema;
    doc["error"] = message;
    return doc.dump();
}

// A caller's context: its environment, nothing printed (a library prints nothing).
peergate::pipeline::Context library_context(const char* const* envp) {
    peergate::pipeline::Context ctx;
    ctx.env = peergate::util::EnvMap::from_envp(envp);
    ctx.output.quiet = true;
    return ctx;
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

// The status `peergate gate` exits with (docs/contracts.md): 0 P2P allowed, 1 vetoed,
// 3 no CUDA program can start here.
int gate_status(const peergate::policy::gate::GateDecision& decision) {
    if (!decision.node.usable) {
        return 3;
    }
    return decision.p2p ? 0 : 1;
}

// The decision as `peergate gate` makes it; an error (status 2) for a GPU the host lacks.
peergate::util::Expected<peergate::policy::gate::GateDecision> launch_decision(
    const peergate::pipeline::Context& ctx,
    const peergate::util::Expected<void>& resolved,
    const peergate::pipeline::GateRequest& request) {
    if (!resolved) {
        peergate::policy::gate::GateInput input;
        input.env = ctx.env;
        input.selection = request.selection;
        input.profile = request.profile;
        return peergate::policy::gate::failed_decision(std::move(input), resolved.error().message);
    }
    return peergate::pipeline::decide_for_launch(ctx.seams, ctx.env, request);
}

int gate_json(const char* const* envp,
              const char* gpus,
              int place,
              const char* profile,
              char* out,
              size_t out_size) {
    auto ctx = library_context(envp);
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
    const auto decision = launch_decision(ctx, resolved, *request);
    if (!decision) {
        return write_out(error_json(decision.error().message), out, out_size, 2);
    }
    return write_out(peergate::report::gate::gate_to_json(*decision).dump(),
                     out,
                     out_size,
                     gate_status(*decision));
}

int topology_json(const char* const* envp, char* out, size_t out_size) {
    constexpr const char* kSchema = "peergate.topology/v1";
    auto ctx = library_context(envp);
    if (const auto resolved = peergate::pipeline::resolve_seams(ctx); !resolved) {
        return write_out(error_json(resolved.error().message, kSchema), out, out_size, 2);
    }
    const auto view = peergate::pipeline::view_topology(ctx, "auto", false);
    const auto* described = view.discovery.described();
    auto doc = peergate::report::topology::topology_to_json(view.discovery);
    peergate::report::topology::add_nics(doc, view.nics, described);
    return write_out(doc.dump(), out, out_size, described != nullptr ? 0 : 2);
}

int place_json(const char* const* envp,
               const char* gpus,
               int size,
               int count,
               const char* profile,
               char* out,
               size_t out_size) {
    constexpr const char* kSchema = "peergate.placement/v1";
    auto ctx = library_context(envp);
    if (size < 1 || count < 0) {
        return write_out(error_json("size must be at least 1 and count at least 0 (0: as many "
                                    "groups as fit)",
                                    kSchema),
                         out,
                         out_size,
                         2);
    }
    if (const auto resolved = peergate::pipeline::resolve_seams(ctx); !resolved) {
        return write_out(error_json(resolved.error().message, kSchema), out, out_size, 2);
    }
    peergate::pipeline::PlacementQuery query{
        .size = size, .count = count > 0 ? std::optional<int>(count) : std::nullopt};
    query.gpus = gpus != nullptr ? gpus : "all";
    const auto placed = peergate::pipeline::place_groups(ctx, query);
    if (!placed) {
        return write_out(error_json(placed.error().message, kSchema), out, out_size, 2);
    }
    const auto doc = peergate::report::placement::placement_to_json(
        placed->result, placed->topology, profile != nullptr ? profile : "all", placed->nics);
    return write_out(doc.dump(), out, out_size, 0);
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

extern "C" int peergate_topology_json(const char* const* envp, char* out, size_t out_size) {
    return guarded([&] { return topology_json(envp, out, out_size); }, out, out_size);
}

extern "C" int peergate_place_json(const char* const* envp,
                                   const char* gpus,
                                   int size,
                                   int count,
                                   const char* profile,
                                   char* out,
                                   size_t out_size) {
    return guarded(
        [&] { return place_json(envp, gpus, size, count, profile, out, out_size); }, out, out_size);
}
