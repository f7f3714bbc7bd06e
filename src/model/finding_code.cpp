// SPDX-License-Identifier: Apache-2.0
#include "model/finding_code.hpp"

#include <array>
#include <charconv>

namespace peergate::model {

namespace {

using enum FindingCode;
using enum Evidence;
constexpr Severity E = Severity::error;
constexpr Severity W = Severity::warning;
constexpr Severity I = Severity::info;

// clang-format off
constexpr std::array<FindingMeta, kFindingCodeCount> kCatalogue{{
    {no_nvidia_driver, "no_nvidia_driver", I, kNodeUnusable, reported, "no NVIDIA driver"},
    {driver_version_mismatch, "driver_version_mismatch", E, kNodeUnusable, reported, "driver mismatch"},
    {topology_unreadable, "topology_unreadable", E, kNoFlags, reported, "topology unreadable"},
    {single_gpu, "single_gpu", I, kNoFlags, reported, "one GPU"},
    {nvswitch_fabric_not_ready, "nvswitch_fabric_not_ready", E, kNodeUnusable | kMarksGpu, reported, "fabric not ready"},
    {nvswitch_fabric_degraded, "nvswitch_fabric_degraded", W, kMarksGpu, reported, "fabric degraded"},
    {mig_enabled, "mig_enabled", W, kNoFlags, reported, "MIG enabled"},
    {mig_mode_pending, "mig_mode_pending", I, kNoFlags, reported, "MIG mode pending"},
    {pcie_p2p_under_translating_iommu, "pcie_p2p_under_translating_iommu", W, kPeerCopiesUnsafe, inferred, "PCIe P2P under a translating IOMMU"},
    {p2p_layers_disagree, "p2p_layers_disagree", I, kNoFlags, reported, "capability layers disagree"},
    {nvlink_status_disagrees, "nvlink_status_disagrees", W, kNoFlags, reported, "NVLink status disagrees"},
    {p2p_not_supported, "p2p_not_supported", W, kNoFlags, reported, "peer access refused"},
    {p2p_slower_than_staged, "p2p_slower_than_staged", I, kNoFlags, measured, "P2P slower than staged"},
    {p2p_slower_than_peers, "p2p_slower_than_peers", W, kNoFlags, measured, "P2P slower than its peers"},
    {acs_redirect, "acs_redirect", W, kNoFlags, reported, "ACS redirect"},
    {probe_data_lost, "probe_data_lost", E, kPeerCopiesUnsafe | kDataLost, measured, "data lost"},
    {probe_sm_path_lost, "probe_sm_path_lost", E, kPeerCopiesUnsafe | kDataLost, measured, "SM path lost"},
    {probe_inconclusive, "probe_inconclusive", W, kNoFlags, measured, "probe inconclusive"},
    {probe_intact, "probe_intact", I, kNoFlags, measured, "probed intact"},
    {cached_probe_data_lost, "cached_probe_data_lost", E, kPeerCopiesUnsafe | kDataLost, measured, "data lost (cached)"},
    {cached_probe_intact, "cached_probe_intact", I, kNoFlags, measured, "probed intact (cached)"},
    {vllm_p2p_cache_trusted, "vllm_p2p_cache_trusted", W, kNoFlags, inferred, "vLLM trusts its P2P cache"},
    {sglang_p2p_cache_trusted, "sglang_p2p_cache_trusted", W, kNoFlags, inferred, "SGLang trusts its P2P cache"},
    {nvlink_down, "nvlink_down", E, kMarksGpu, reported, "NVLinks down"},
    {nvlink_errors, "nvlink_errors", W, kMarksGpu, reported, "NVLink errors"},
    {nvlink_errors_under_load, "nvlink_errors_under_load", E, kMarksGpu, measured, "NVLink errors under load"},
    {pcie_link_narrow, "pcie_link_narrow", W, kMarksGpu, reported, "PCIe link narrow"},
    {nic_link_narrow, "nic_link_narrow", W, kNoFlags, reported, "NIC link narrow"},
    {pcie_aer_errors, "pcie_aer_errors", W, kMarksGpu, reported, "PCIe AER errors"},
    {pcie_aer_errors_under_load, "pcie_aer_errors_under_load", E, kMarksGpu, measured, "AER under load"},
    {nic_aer_errors, "nic_aer_errors", W, kNoFlags, reported, "NIC AER errors"},
    {acs_redirect_nic, "acs_redirect_nic", W, kNoFlags, reported, "ACS redirect to the NIC"},
    {gdr_no_peer_memory, "gdr_no_peer_memory", W, kNoFlags, reported, "no GPUDirect RDMA"},
    {xid, "xid", W, kNoFlags, logged, "Xid"},
    {sxid, "sxid", W, kNoFlags, logged, "SXid"},
    {dmar_fault_gpu, "dmar_fault_gpu", E, kPeerCopiesUnsafe, logged, "DMAR fault"},
    {dmar_fault_other_device, "dmar_fault_other_device", I, kNoFlags, logged, "DMAR fault elsewhere"},
    {amd_vi_fault_gpu, "amd_vi_fault_gpu", E, kPeerCopiesUnsafe, logged, "AMD-Vi fault"},
    {amd_vi_fault_other_device, "amd_vi_fault_other_device", I, kNoFlags, logged, "AMD-Vi fault elsewhere"},
    {pcie_aer_logged_corrected, "pcie_aer_logged_corrected", W, kNoFlags, logged, "AER corrected"},
    {pcie_aer_logged_nonfatal, "pcie_aer_logged_nonfatal", E, kNoFlags, logged, "AER non-fatal"},
    {pcie_aer_logged_fatal, "pcie_aer_logged_fatal", E, kNoFlags, logged, "AER fatal"},
    {kernel_log_truncated, "kernel_log_truncated", I, kNoFlags, logged, "kernel log truncated"},
    {nccl_topo_file_false_nvlink, "nccl_topo_file_false_nvlink", E, kNoFlags, reported, "NCCL topology file claims NVLink"},
    {nccl_topo_file_malformed, "nccl_topo_file_malformed", E, kNoFlags, reported, "NCCL topology file malformed"},
    {nccl_topo_file_unchecked, "nccl_topo_file_unchecked", W, kNoFlags, reported, "NCCL topology file unchecked"},
    {nccl_nvlink_unused, "nccl_nvlink_unused", W, kNoFlags, logged, "NVLink unused by NCCL"},
    {nccl_transport_unverified, "nccl_transport_unverified", E, kNoFlags, logged, "NCCL P2P unverified"},
    {nccl_p2p_disabled_by_environment, "nccl_p2p_disabled_by_environment", I, kNoFlags, logged, "NCCL P2P disabled"},
    {nccl_p2p_level_set_by_environment, "nccl_p2p_level_set_by_environment", W, kNoFlags, logged, "NCCL P2P level set"},
    {nccl_setting_differs_between_ranks, "nccl_setting_differs_between_ranks", W, kNoFlags, logged, "NCCL settings differ"},
    {nccl_graph_worse_than_topology, "nccl_graph_worse_than_topology", W, kNoFlags, logged, "NCCL graph worse"},
    {nccl_net_without_gdr, "nccl_net_without_gdr", E, kNoFlags, logged, "NCCL net without GDR"},
    {nccl_init_incomplete, "nccl_init_incomplete", W, kNoFlags, logged, "NCCL init incomplete"},
    {nccl_no_connection_lines, "nccl_no_connection_lines", W, kNoFlags, logged, "no NCCL connections"},
    {nccl_lines_skipped, "nccl_lines_skipped", I, kNoFlags, logged, "NCCL lines skipped"},
    {nccl_log_capped, "nccl_log_capped", W, kNoFlags, logged, "NCCL log capped"},
    {nccl_diag_edge_failed, "nccl_diag_edge_failed", E, kDataLost, logged, "NCCL P2P check failed"},
    {nccl_ras_process_dead, "nccl_ras_process_dead", W, kNoFlags, logged, "NCCL process dead"},
    {nccl_ras_process_unresponsive, "nccl_ras_process_unresponsive", W, kNoFlags, logged, "NCCL process unresponsive"},
    {nccl_ras_ranks_missing, "nccl_ras_ranks_missing", W, kNoFlags, logged, "NCCL ranks missing"},
    {nccl_ras_check_issue, "nccl_ras_check_issue", W, kNoFlags, logged, "NCCL RAS issue"},
    {watch_unavailable, "watch_unavailable", I, kNoFlags, reported, "watch unavailable"},
    {watch_counters_unavailable, "watch_counters_unavailable", W, kNoFlags, reported, "counters unavailable"},
    {watch_gpu_idle, "watch_gpu_idle", W, kNoFlags, measured, "GPU idle"},
    {watch_p2p_unused, "watch_p2p_unused", W, kNoFlags, measured, "P2P unused"},
    {watch_sampling_stopped, "watch_sampling_stopped", W, kNoFlags, measured, "sampling stopped"},
}};

// clang-format on

// Every row sits at its code's position, so meta() is an index and a row added out of place,
// or a code without a row, fails the build.
constexpr bool rows_in_order() {
    for (std::size_t i = 0; i < kCatalogue.size(); ++i) {
        if (static_cast<std::size_t>(kCatalogue[i].code) != i || kCatalogue[i].id.empty()) {
            return false;
        }
    }
    return true;
}

static_assert(rows_in_order(), "kCatalogue: one row per FindingCode, in the enum's order");

constexpr bool numbered(FindingCode code) {
    return code == xid || code == sxid;
}

}  // namespace

std::string_view to_string(Severity severity) {
    switch (severity) {
        case Severity::error:
            return "error";
        case Severity::warning:
            return "warning";
        case Severity::info:
            return "info";
    }
    return "info";
}

const FindingMeta& meta(FindingCode code) {
    return kCatalogue[static_cast<std::size_t>(code)];
}

bool has_flag(FindingCode code, FindingFlag flag) {
    return (meta(code).flags & flag) != 0;
}

std::string_view id(FindingCode code) {
    return meta(code).id;
}

std::optional<FindingCode> parse_finding_code(std::string_view text, int* number) {
    for (const auto& row : kCatalogue) {
        if (!numbered(row.code)) {
            if (row.id == text) {
                return row.code;
            }
            continue;
        }
        const auto prefix_end = row.id.size();
        if (text.size() <= prefix_end + 1 || text.substr(0, prefix_end) != row.id ||
            text[prefix_end] != '_') {
            continue;
        }
        int n = 0;
        const auto digits = text.substr(prefix_end + 1);
        const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
        if (ec == std::errc{} && end == digits.data() + digits.size()) {
            if (number != nullptr) {
                *number = n;
            }
            return row.code;
        }
    }
    return std::nullopt;
}

}  // namespace peergate::model
