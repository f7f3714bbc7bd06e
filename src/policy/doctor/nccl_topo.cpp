// SPDX-License-Identifier: Apache-2.0
#include "policy/doctor/nccl_topo.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <set>
#include <string>

namespace peergate::policy::doctor {

namespace {

model::Finding malformed_finding(const model::NcclTopoFile& file) {
    return model::Finding{
        .code = model::FindingCode::nccl_topo_file_malformed,
        .severity = model::Severity::warning,
        .message = fmt::format("NCCL's topology file {} (named by {}) cannot be read as NCCL "
                               "reads it: {}. NCCL stops at init on such a file",
                               file.path,
                               file.named_by,
                               file.malformed),
        .remedy =
            "Fix or remove the file, or name another (peergate export nccl-topo writes "
            "one NCCL reads)."};
}

model::Finding unchecked_finding(const model::NcclTopoFile& file) {
    return model::Finding{
        .code = model::FindingCode::nccl_topo_file_unchecked,
        .severity = model::Severity::info,
        .message = fmt::format("NCCL's topology file {} (named by {}) was not checked for "
                               "NVLinks this host lacks: {}",
                               file.path,
                               file.named_by,
                               file.unreadable)};
}

model::Finding false_claim_finding(const model::NcclTopoFile& file,
                                   const model::Topology& topology,
                                   const std::vector<std::pair<int, int>>& claims,
                                   bool pcie_unsafe) {
    std::vector<std::string> pairs;
    std::set<int> gpus;
    for (const auto& [a, b] : claims) {
        pairs.push_back(
            fmt::format("GPU {} to GPU {} ({})", a, b, topology.label(a, b)->to_token()));
        gpus.insert({a, b});
    }
    return model::Finding{
        .code = model::FindingCode::nccl_topo_file_false_nvlink,
        .severity = pcie_unsafe ? model::Severity::error : model::Severity::warning,
        .gpus = std::vector<int>(gpus.begin(), gpus.end()),
        .message = fmt::format(
            "NCCL's topology file {} (named by {}) lists NVLinks this host does not have: {}. "
            "A <gpu> that lists NVLinks stops NCCL from asking NVML, so NCCL takes these pairs "
            "for NVLinked, lets its P2P transport through even under NCCL_P2P_LEVEL=NVL, and the "
            "driver carries the traffic over PCIe{}",
            file.path,
            file.named_by,
            fmt::join(pairs, ", "),
            pcie_unsafe ? ", where this host can drop peer copies silently" : ""),
        .remedy =
            "Write the file again without NVLinks (peergate export nccl-topo) or stop "
            "naming it; peergate exec --for nccl sets NCCL_P2P_DISABLE=1 meanwhile."};
}

}  // namespace

std::vector<model::Finding> nccl_topo_findings(const std::optional<model::NcclTopoFile>& file,
                                               const model::Topology& topology,
                                               const std::vector<int>& examined,
                                               bool pcie_unsafe) {
    if (!file || !file->exists) {
        return {};
    }
    if (!file->malformed.empty()) {
        return {malformed_finding(*file)};
    }
    if (!file->unreadable.empty()) {
        return {unchecked_finding(*file)};
    }
    const auto claims = file->false_nvlink_claims(topology, examined);
    if (claims.empty()) {
        return {};
    }
    return {false_claim_finding(*file, topology, claims, pcie_unsafe)};
}

}  // namespace peergate::policy::doctor
