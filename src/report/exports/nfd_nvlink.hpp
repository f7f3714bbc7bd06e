// SPDX-License-Identifier: Apache-2.0
// The NVLink graph among the examined GPUs as the NFD labels describe it (docs/export.md,
// nfd): its islands, the largest one and how its GPUs are spelled in a label value, and the
// fewest NVLinks between any two GPUs.
#pragma once

#include "model/gpu.hpp"
#include "model/topology.hpp"

#include <optional>
#include <string>
#include <vector>

namespace peergate::report::exports {

struct NfdNvlinks {
    // The connected components of the NVLink graph that hold two GPUs or more (a GPU without
    // NVLink is no island), each sorted, ordered by their smallest member. GPUs of one island
    // reach each other over NVLink, through other GPUs of it where no link joins them directly.
    std::vector<std::vector<int>> islands;
    int min_links = 0;  // the fewest NVLinks between any two of the GPUs (0: a pair is PCIe)

    // The largest island (the first of those alike); empty when there is none.
    std::vector<int> largest() const;
};

NfdNvlinks nfd_nvlinks(const model::Topology& topology, const std::vector<model::Gpu>& gpus);

// GPU indices as a label value: "0_1_2_3" (a label value takes no comma; '_' for ',' gives a
// --gpus list). nullopt where the list would not fit the 63 characters a value may have.
std::optional<std::string> gpu_list_label(const std::vector<int>& gpus);

}  // namespace peergate::report::exports
