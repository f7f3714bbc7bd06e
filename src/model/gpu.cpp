// SPDX-License-Identifier: Apache-2.0
#include "model/gpu.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace peergate::model {

const Gpu* find_gpu(const std::vector<Gpu>& gpus, int index) {
    const auto it =
        std::find_if(gpus.begin(), gpus.end(), [index](const Gpu& g) { return g.index == index; });
    return it == gpus.end() ? nullptr : &*it;
}

std::string gpu_words(const std::vector<int>& indices) {
    return fmt::format("GPU{} {}", indices.size() == 1 ? "" : "s", fmt::join(indices, ","));
}

}  // namespace peergate::model
