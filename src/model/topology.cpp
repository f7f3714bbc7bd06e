// SPDX-License-Identifier: Apache-2.0
#include "model/topology.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <set>

namespace peergate::model {

std::string_view to_string(TopologySource source) {
    switch (source) {
        case TopologySource::nvml:
            return "nvml";
        case TopologySource::nvidia_smi:
            return "nvidia-smi";
        case TopologySource::file:
            return "file";
        case TopologySource::simulated:
            return "simulated";
        case TopologySource::none:
            return "none";
    }
    return "none";
}

std::optional<std::size_t> Topology::position_of(int index) const {
    for (std::size_t p = 0; p < gpus.size(); ++p) {
        if (gpus[p].index == index) {
            return p;
        }
    }
    return std::nullopt;
}

std::optional<LinkLabel> Topology::label(int a, int b) const {
    const auto pa = position_of(a);
    const auto pb = position_of(b);
    if (!pa || !pb || *pa >= matrix.size() || *pb >= matrix[*pa].size()) {
        return std::nullopt;
    }
    return matrix[*pa][*pb];
}

std::vector<std::vector<int>> Topology::nvlink_islands() const {
    // Union-find over positions; a link in either direction joins the two.
    std::vector<std::size_t> parent(size());
    std::iota(parent.begin(), parent.end(), std::size_t{0});
    auto find = [&parent](std::size_t x) {
        while (parent[x] != x) {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        return x;
    };
    for (std::size_t p = 0; p < matrix.size() && p < size(); ++p) {
        for (std::size_t q = 0; q < matrix[p].size() && q < size(); ++q) {
            if (p != q && matrix[p][q].is_nvlink()) {
                parent[find(p)] = find(q);
            }
        }
    }
    std::vector<std::vector<int>> islands;
    std::vector<std::size_t> roots;
    for (std::size_t p = 0; p < size(); ++p) {
        const auto root = find(p);
        const auto it = std::find(roots.begin(), roots.end(), root);
        if (it == roots.end()) {
            roots.push_back(root);
            islands.push_back({gpus[p].index});
        } else {
            islands[static_cast<std::size_t>(it - roots.begin())].push_back(gpus[p].index);
        }
    }
    for (auto& island : islands) {
        std::sort(island.begin(), island.end());
    }
    std::sort(islands.begin(), islands.end());
    return islands;
}

bool Topology::uniformly_nvlinked() const {
    if (size() < 2 || matrix.size() != size()) {
        return false;
    }
    for (std::size_t p = 0; p < size(); ++p) {
        for (std::size_t q = 0; q < size(); ++q) {
            if (p != q && !matrix[p][q].is_nvlink()) {
                return false;
            }
        }
    }
    return true;
}

std::vector<std::pair<int, int>> Topology::nvlinked_pairs() const {
    std::vector<std::pair<int, int>> pairs;
    for (std::size_t p = 0; p < matrix.size() && p < size(); ++p) {
        for (std::size_t q = 0; q < matrix[p].size() && q < size(); ++q) {
            if (p != q && matrix[p][q].is_nvlink()) {
                pairs.emplace_back(gpus[p].index, gpus[q].index);
            }
        }
    }
    std::sort(pairs.begin(), pairs.end());
    return pairs;
}

namespace {

util::Unexpected fail(std::string message) {
    return util::unexpected(util::ErrorCode::invalid_input, std::move(message));
}

util::Expected<void> check_cell(const Topology& t, std::size_t p, std::size_t q) {
    const LinkLabel& label = t.matrix[p][q];
    const int a = t.gpus[p].index;
    const int b = t.gpus[q].index;
    if (label.kind == LinkKind::unknown) {
        return fail(fmt::format("vocabulary: GPU{} to GPU{} has no known label", a, b));
    }
    if ((p == q) != (label.kind == LinkKind::self)) {
        return fail(p == q
                        ? fmt::format("diagonal: GPU{} to itself is {}, not X", a, label.to_token())
                        : fmt::format("diagonal: GPU{} to GPU{} is X off the diagonal", a, b));
    }
    if (t.matrix[q][p] != label) {
        return fail(fmt::format("symmetry: GPU{} to GPU{} is {} but GPU{} to GPU{} is {}",
                                a,
                                b,
                                label.to_token(),
                                b,
                                a,
                                t.matrix[q][p].to_token()));
    }
    return {};
}

}  // namespace

// Two GPUs with one PCI bus id or one UUID are a contradiction, not two GPUs: the gate would
// otherwise judge a pair by the wrong row (issue 34; docs/gate-rules.md §3).
util::Expected<void> check_identities(const Topology& topology) {
    const auto& gpus = topology.gpus;
    for (std::size_t p = 0; p < gpus.size(); ++p) {
        for (std::size_t q = p + 1; q < gpus.size(); ++q) {
            if (gpus[p].pci && gpus[q].pci && *gpus[p].pci == *gpus[q].pci) {
                return fail(fmt::format("identity: GPU{} and GPU{} report the same PCI bus id {}",
                                        gpus[p].index,
                                        gpus[q].index,
                                        gpus[p].pci->to_nvml()));
            }
            if (!gpus[p].uuid.empty() && gpus[p].uuid == gpus[q].uuid) {
                return fail(fmt::format("identity: GPU{} and GPU{} report the same UUID {}",
                                        gpus[p].index,
                                        gpus[q].index,
                                        gpus[p].uuid));
            }
        }
    }
    return {};
}

util::Expected<void> check_matrix(const Topology& topology) {
    const std::size_t n = topology.size();
    if (n == 0) {
        return fail("empty: no GPUs in the matrix");
    }
    std::set<int> seen;
    for (const auto& gpu : topology.gpus) {
        if (!seen.insert(gpu.index).second) {
            return fail(fmt::format("duplicate: GPU{} appears twice", gpu.index));
        }
    }
    PEERGATE_TRY(check_identities(topology));
    if (topology.matrix.size() != n) {
        return fail(fmt::format("shape: {} rows for {} GPUs", topology.matrix.size(), n));
    }
    for (std::size_t p = 0; p < n; ++p) {
        if (topology.matrix[p].size() != n) {
            return fail(fmt::format("shape: row GPU{} has {} labels for {} GPUs",
                                    topology.gpus[p].index,
                                    topology.matrix[p].size(),
                                    n));
        }
    }
    for (std::size_t p = 0; p < n; ++p) {
        for (std::size_t q = 0; q < n; ++q) {
            PEERGATE_TRY(check_cell(topology, p, q));
        }
    }
    return {};
}

}  // namespace peergate::model
