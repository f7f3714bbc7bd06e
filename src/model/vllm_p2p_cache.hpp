// SPDX-License-Identifier: Apache-2.0
// vLLM's record of its own P2P check (read by sources/host/vllm_p2p_cache, judged by the
// gate and the doctor): it tests each ordered pair once with one small copy, writes the
// answers to $VLLM_CACHE_ROOT/gpu_p2p_access_cache_for_<CUDA_VISIBLE_DEVICES>.json and trusts
// that file from then on, on every boot. Pairs are vLLM's local device ids. SGLang, whose
// check is adapted from vLLM's, writes the same file to ~/.cache/sglang.
#pragma once

#include <string>
#include <vector>

namespace peergate::model {

struct VllmP2pCache {
    std::string path;
    std::string visible_devices;          // the file's suffix: "0,1", "2,3", "GPU-..."
    std::vector<std::string> says_works;  // its entries that are true, as written: "0->1"

    friend bool operator==(const VllmP2pCache&, const VllmP2pCache&) = default;
};

}  // namespace peergate::model
