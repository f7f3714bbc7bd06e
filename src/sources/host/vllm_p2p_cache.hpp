// SPDX-License-Identifier: Apache-2.0
// vLLM's cache of its own P2P check, read so the gate can say when vLLM would trust it over
// a real test. vLLM (custom all-reduce) writes one file per CUDA_VISIBLE_DEVICES string:
// $VLLM_CACHE_ROOT/gpu_p2p_access_cache_for_<devices>.json, VLLM_CACHE_ROOT defaulting to
// $XDG_CACHE_HOME/vllm, else ~/.cache/vllm; the document is {"0->1": true, ...}.
#pragma once

#include "model/vllm_p2p_cache.hpp"
#include "util/env_map.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace peergate::sources::host {

// The directory vLLM keeps the files in under `env`; "" when no variable names one.
std::string vllm_cache_root(const util::EnvMap& env);

// SGLang's: os.path.expanduser("~/.cache/sglang"), which no variable moves; "" without HOME.
std::string sglang_cache_root(const util::EnvMap& env);

// The "src->dst" entries that are true; nullopt when the text is not such a document.
std::optional<std::vector<std::string>> parse_vllm_p2p_cache(std::string_view text);

// Every readable P2P cache file in `root`; files that do not parse are left out.
std::vector<model::VllmP2pCache> read_vllm_p2p_caches(const std::string& root);

}  // namespace peergate::sources::host
