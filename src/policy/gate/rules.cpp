// SPDX-License-Identifier: Apache-2.0
#include "policy/gate/rules.hpp"

#include "policy/gate/names.hpp"
#include "policy/gate/node_usability.hpp"
#include "policy/gate/veto.hpp"
#include "util/strings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>

namespace peergate::policy::gate {

namespace {

struct Answer {
    bool p2p = false;
    std::string rule;
    std::string reason;
    bool pcie_path = false;  // the veto implies a PCIe path: the IOMMU suffix applies
};

using Rule = std::optional<Answer> (*)(const GateFacts&);

Answer veto(std::string rule, std::string reason, bool pcie_path = false) {
    return Answer{false, std::move(rule), std::move(reason), pcie_path};
}

std::optional<Answer> rule_disable_p2p(const GateFacts& f) {
    if (!f.control.disable_p2p.on) {
        return std::nullopt;
    }
    return veto("disable_p2p", f.control.disable_p2p.variable + "=1: P2P is switched off");
}

std::optional<Answer> rule_disable_tuning(const GateFacts& f) {
    if (!f.control.disable_tuning.on) {
        return std::nullopt;
    }
    return veto("disable_tuning", f.control.disable_tuning.variable + "=1: no tuning at all");
}

std::optional<Answer> rule_decision_failed(const GateFacts& f) {
    if (f.input.failures.empty()) {
        return std::nullopt;
    }
    return veto("decision_failed",
                "could not decide, so P2P stays off: " + util::join(f.input.failures, "; "));
}

// The one verdict on whether a CUDA program can start, also the decision's `node`.
std::optional<Answer> rule_cuda_unavailable(const GateFacts& f) {
    auto node = node_usability(f.input);
    if (node.usable) {
        return std::nullopt;
    }
    return veto(std::move(node.rule), std::move(node.reason));
}

std::optional<Answer> rule_selection_resolves(const GateFacts& f) {
    if (!f.selection.absent.empty()) {
        return veto("gpu_absent", absent_text(f.selection.absent, f.host));
    }
    if (!f.selection.unmapped.empty()) {
        return veto("gpu_absent",
                    "the child would see GPUs that are not in the matrix: " +
                        util::join(f.selection.unmapped, ", "));
    }
    return std::nullopt;
}

// Where no source described a GPU (no names, no matrix), the reader's reason: a veto that only
// said "no GPU is selected" or "its name is unknown" would hide why (issue 33 item 4).
std::string unread_reason(const GateFacts& f) {
    if (!f.input.gpus.empty() || f.input.topology) {
        return "";
    }
    return "; no source described the GPUs: " + (f.input.topology_reason.empty()
                                                     ? std::string("no tier gave a matrix")
                                                     : f.input.topology_reason);
}

std::optional<Answer> rule_datacenter_names(const GateFacts& f) {
    for (const int id : f.selection.ids) {
        const std::string name = f.name_of(id).value_or("");
        if (is_datacenter_name(name) || f.nvlinked_to_selected_peer(id)) {
            continue;
        }
        return veto("datacenter_name",
                    name.empty() ? fmt::format("the name of GPU {} is unknown, so it cannot be "
                                               "shown to be a data-center part{}",
                                               id,
                                               unread_reason(f))
                                 : fmt::format("GPU {} ({}) is not a data-center GPU and has no "
                                               "NVLink to the other selected GPUs",
                                               id,
                                               name),
                    true);
    }
    return std::nullopt;
}

std::optional<Answer> rule_more_than_one_gpu(const GateFacts& f) {
    const auto& ids = f.selection.ids;
    if (ids.size() >= 2) {
        return std::nullopt;
    }
    return veto("single_gpu",
                ids.empty() ? "no GPU is selected: there is no peer" + unread_reason(f)
                            : fmt::format("only GPU {} is selected: there is no peer{}",
                                          ids.front(),
                                          unread_reason(f)));
}

std::optional<Answer> rule_user_opted_out(const GateFacts& f) {
    if (!f.inherited.off()) {
        return std::nullopt;
    }
    return veto("user_opted_out",
                fmt::format("GGML_CUDA_P2P='{}' reads as off, so P2P stays off (the variable is "
                            "removed: llama.cpp turns peer access on for any value)",
                            *f.inherited.value));
}

// A pair-level (cached) verdict vouches for a selection only when every ordered pair of it
// passed; a pair it does not list was not proven, which is doubt, not a pass.
bool probe_vouches(const GateFacts& f) {
    const auto& probe = *f.input.probe;
    if (!probe.pair_level) {
        return probe.passed;
    }
    const auto& ids = f.selection.ids;
    if (ids.size() < 2) {
        return false;
    }
    for (int a : ids) {
        for (int b : ids) {
            const bool listed =
                std::find(probe.passed_pairs.begin(), probe.passed_pairs.end(), std::pair{a, b}) !=
                probe.passed_pairs.end();
            if (a != b && !listed) {
                return false;
            }
        }
    }
    return true;
}

// The first selected ordered pair that the cached run on this boot saw lose data.
std::optional<std::pair<int, int>> selected_lost_pair(const GateFacts& f) {
    for (const auto& [a, b] : f.input.probe->lost_pairs) {
        const auto& ids = f.selection.ids;
        if (std::find(ids.begin(), ids.end(), a) != ids.end() &&
            std::find(ids.begin(), ids.end(), b) != ids.end()) {
            return std::pair{a, b};
        }
    }
    return std::nullopt;
}

std::optional<Answer> rule_probe_failed(const GateFacts& f) {
    if (!f.input.probe) {
        return std::nullopt;
    }
    // A pair-level verdict ignores `passed` (types.hpp): a selected pair seen losing data
    // vetoes whatever the rest says (found by the fail-closed property test, issue 34).
    if (f.input.probe->pair_level) {
        const auto lost = selected_lost_pair(f);
        if (!lost) {
            return std::nullopt;
        }
        return veto("probe_failed",
                    fmt::format("the integrity probe lost data from GPU {} to GPU {} on this "
                                "boot (the verdict cache's run)",
                                lost->first,
                                lost->second),
                    true);
    }
    if (f.input.probe->passed) {
        return std::nullopt;
    }
    return veto("probe_failed",
                "the integrity probe lost data on this boot: " + f.input.probe->detail,
                true);
}

// FORCE overrides the name and topology gates, never doubt about data: while a verdict cache
// is there that cannot be read or trusted, or that recorded a loss it cannot tie to this boot,
// forcing could switch P2P on over a loss nobody can rule out (docs/security.md).
std::optional<Answer> rule_cache_untrusted(const GateFacts& f) {
    if (!f.control.force_p2p.on || !f.input.cache_doubt) {
        return std::nullopt;
    }
    return veto("cache_untrusted",
                f.control.force_p2p.variable + "=1 refused: " + *f.input.cache_doubt,
                true);
}

std::optional<Answer> rule_force_p2p(const GateFacts& f) {
    if (!f.control.force_p2p.on) {
        return std::nullopt;
    }
    return Answer{
        true,
        "force_p2p",
        f.control.force_p2p.variable + "=1: P2P forced on a fabric peergate has not verified"};
}

std::optional<Answer> rule_probe_passed(const GateFacts& f) {
    if (!f.input.probe || !probe_vouches(f)) {
        return std::nullopt;
    }
    return Answer{
        true, "probe_passed", "the integrity probe passed on this boot: " + f.input.probe->detail};
}

// With a matrix the veto names the pair and its label, as every PCIe veto does.
std::string no_nvlink_text(const GateFacts& f, int id, const std::string& name) {
    const std::string part = fmt::format(
        "GPU {} ({}) has no NVLink connector", id, name.empty() ? "name unknown" : name);
    for (const int peer : f.selection.ids) {
        const auto label =
            peer == id || !f.input.topology ? std::nullopt : f.input.topology->label(id, peer);
        if (label && !label->is_nvlink()) {
            return pair_veto(id, peer, *label) + " (" + part + ")";
        }
    }
    return part + " and the matrix shows no NVLink to the other selected GPUs";
}

std::optional<Answer> rule_nvlink_names(const GateFacts& f) {
    for (const int id : f.selection.ids) {
        const std::string name = f.name_of(id).value_or("");
        if (is_nvlink_capable_name(name) || f.nvlinked_to_selected_peer(id)) {
            continue;
        }
        return veto("nvlink_name", no_nvlink_text(f, id, name), true);
    }
    return std::nullopt;
}

std::optional<Answer> rule_matrix_available(const GateFacts& f) {
    if (f.input.topology) {
        // The tiers check every matrix (docs/gate-rules.md §3); the gate checks again, so that
        // no caller can hand it two GPUs with one identity (the property test, issue 34).
        if (auto checked = model::check_identities(*f.input.topology); !checked) {
            return veto("no_matrix",
                        "the interconnect matrix contradicts itself: " + checked.error().message);
        }
        return std::nullopt;
    }
    return veto("no_matrix",
                f.input.topology_reason.empty()
                    ? std::string("neither NVML nor nvidia-smi topo -m gave a usable "
                                  "interconnect matrix")
                    : f.input.topology_reason);
}

std::optional<Answer> rule_index_guards(const GateFacts& f) {
    for (const int id : f.selection.ids) {
        if (!f.input.topology->position_of(id)) {
            return veto("gpu_absent",
                        fmt::format("GPU {} is absent from the interconnect matrix", id));
        }
    }
    if (auto pinning = pinning_veto(f.input, f.selection)) {
        return veto("order_not_pinned", *pinning);
    }
    return std::nullopt;
}

std::optional<Answer> rule_every_pair_nvlink(const GateFacts& f) {
    if (auto pair = f.first_non_nvlink_pair()) {
        return veto("every_pair_nvlink", *pair, true);
    }
    return Answer{true,
                  "every_pair_nvlink",
                  fmt::format("every selected pair is NVLink (GPUs {})", id_list(f.selection.ids))};
}

constexpr std::array<Rule, 16> kRules = {
    rule_disable_p2p,
    rule_disable_tuning,
    rule_decision_failed,
    rule_cuda_unavailable,
    rule_selection_resolves,
    rule_datacenter_names,
    rule_more_than_one_gpu,
    rule_user_opted_out,
    rule_probe_failed,
    rule_cache_untrusted,
    rule_force_p2p,
    rule_probe_passed,
    rule_nvlink_names,
    rule_matrix_available,
    rule_index_guards,
    rule_every_pair_nvlink,
};

}  // namespace

P2pVerdict decide_p2p(const GateFacts& facts) {
    for (const Rule rule : kRules) {
        if (auto answer = rule(facts)) {
            if (!answer->p2p && answer->pcie_path) {
                answer->reason += iommu_suffix(facts.input.host);
            }
            return P2pVerdict{answer->p2p, std::move(answer->rule), std::move(answer->reason)};
        }
    }
    return P2pVerdict{false, "internal", "no rule answered"};  // unreachable: the last rule answers
}

}  // namespace peergate::policy::gate
