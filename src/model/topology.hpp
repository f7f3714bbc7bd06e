// SPDX-License-Identifier: Apache-2.0
// The interconnect between the GPUs of one host: who they are and the path class of
// every ordered pair, with where that answer came from.
#pragma once

#include "model/gpu.hpp"
#include "model/link_label.hpp"
#include "util/expected.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace peergate::model {

// Which tier answered. Contract values of peergate.topology/v1 "source".
enum class TopologySource { nvml, nvidia_smi, file, simulated, none };

// "nvml", "nvidia-smi", "file", "simulated", "none".
std::string_view to_string(TopologySource source);

// A NIC as nvidia-smi's topo -m prints it beside the GPUs: its column's name ("NIC0", or the
// RDMA device itself, "mlx5_0", in drivers before the NIC Legend), the RDMA device the NIC
// Legend names for it ("" where the text has no legend), and its path to each GPU.
struct TopologyNic {
    std::string name;
    std::string device;
    std::vector<LinkLabel> paths;  // paths[p]: to the GPU at position p

    friend bool operator==(const TopologyNic&, const TopologyNic&) = default;
};

struct Topology {
    std::vector<Gpu> gpus;                       // by position; gpus[p].index is the smi index
    std::vector<std::vector<LinkLabel>> matrix;  // matrix[p][q]: path from position p to q
    TopologySource source = TopologySource::none;
    std::string provenance;  // what exactly was read (command, file, library)
    // The NICs topo -m printed, in column order; empty for the tiers that give none (NVML
    // answers only between GPUs; the host's NICs come from sysfs, pipeline/nic_affinity.hpp).
    std::vector<TopologyNic> nics;

    std::size_t size() const { return gpus.size(); }

    // Position of the GPU with nvidia-smi index `index`, if present.
    std::optional<std::size_t> position_of(int index) const;

    // Label between the GPUs with nvidia-smi indices a and b; nullopt if either is absent.
    std::optional<LinkLabel> label(int a, int b) const;

    // Connected components of the NV# graph (singletons included), each sorted by
    // index, ordered by smallest member. Indices are nvidia-smi indices.
    std::vector<std::vector<int>> nvlink_islands() const;

    // True when every off-diagonal pair is NV#: any permutation of ids is then safe.
    bool uniformly_nvlinked() const;

    // Ordered pairs (a, b), a != b, whose label is NV#, in index order.
    std::vector<std::pair<int, int>> nvlinked_pairs() const;

    friend bool operator==(const Topology&, const Topology&) = default;
};

// Checks what every tier's matrix must satisfy: square and as large as the GPU list,
// X on the diagonal and only there, no unknown label, symmetric, unique indices.
// The error names the check that failed and the pair (or the two GPUs whose PCI bus id or
// UUID is the same: check_identities).
util::Expected<void> check_matrix(const Topology& topology);

// No two GPUs with one PCI bus id or one UUID (where known).
util::Expected<void> check_identities(const Topology& topology);

}  // namespace peergate::model
