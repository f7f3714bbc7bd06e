// SPDX-License-Identifier: Apache-2.0
#include "policy/gate/control.hpp"

#include "util/strings.hpp"

namespace peergate::policy::gate {

namespace {

ControlSwitch read_switch(const util::EnvMap& env, const char* ours, const char* alias) {
    if (env.is_one(ours)) {
        return {true, ours};
    }
    if (env.is_one(alias)) {
        return {true, alias};
    }
    return {};
}

}  // namespace

ControlPlane read_control_plane(const util::EnvMap& env) {
    return ControlPlane{
        .disable_tuning = read_switch(env, "PEERGATE_DISABLE_TUNING", "UNSLOTH_DISABLE_DC_TUNING"),
        .disable_p2p = read_switch(env, "PEERGATE_DISABLE_P2P", "UNSLOTH_DISABLE_DC_P2P"),
        .force_p2p = read_switch(env, "PEERGATE_FORCE_P2P", "UNSLOTH_FORCE_DC_P2P"),
        .crosscheck = read_switch(env, "PEERGATE_TOPO_CROSSCHECK", "UNSLOTH_P2P_TOPO_CROSSCHECK"),
    };
}

bool is_off_value(std::string_view value) {
    const std::string v = util::to_lower(util::trim(value));
    return v.empty() || v == "0" || v == "false" || v == "off" || v == "no";
}

InheritedP2p read_inherited_p2p(const util::EnvMap& env) {
    return InheritedP2p{env.get(kGgmlCudaP2p)};
}

}  // namespace peergate::policy::gate
