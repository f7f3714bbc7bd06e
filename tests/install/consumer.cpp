// SPDX-License-Identifier: Apache-2.0
// A C++ program built against an installed peergate: only <peergate/gate.hpp> and the
// standard library. On a host whose NVML and nvidia-smi cannot be found, apply() must veto
// P2P and say why, never throw; the document it returns is peergate.gate/v1.
#include <cstdio>
#include <peergate/gate.hpp>

int main() {
    peergate::Environment env = {{"PATH", "/usr/bin:/bin"},
                                 {"PEERGATE_NVML_LIB", "/nonexistent/libnvidia-ml.so.1"},
                                 {"PEERGATE_NVIDIA_SMI", "/nonexistent/nvidia-smi"},
                                 {"GGML_CUDA_P2P", "1"}};
    const auto d = peergate::apply(env, {.selection = peergate::Selection::list({0, 1})});
    std::printf("p2p=%d rule=%s\n", d.p2p ? 1 : 0, d.rule.c_str());
    const bool pinned =
        env.count("CUDA_VISIBLE_DEVICES") == 1 && env["CUDA_VISIBLE_DEVICES"] == "0,1";
    const bool document = d.json.find("peergate.gate/v1") != std::string::npos;
    return !d.p2p && !d.veto.empty() && pinned && document ? 0 : 1;
}
