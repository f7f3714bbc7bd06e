// SPDX-License-Identifier: Apache-2.0
#include "model/gpu.hpp"

#include <algorithm>

namespace peergate::model {

const Gpu* find_gpu(const std::vector<Gpu>& gpus, int index) {
    const auto it =
        std::find_if(gpus.begin(), gpus.end(), [index](const Gpu& g) { return g.index == index; });
    return it == gpus.end() ? nullptr : &*it;
}

}  // namespace peergate::model
