// SPDX-License-Identifier: Apache-2.0
// The catalogue of finding codes: one enum and one table, each row the code's stable id (the
// JSON `code`, docs/doctor.md), its usual severity, what it means for the node and its peer
// copies, the short label a drawing puts on a GPU, and how strong its evidence is. A list of
// codes anywhere else ("the codes that make a node unusable") is a flag here; a new code is
// one enumerator and one row, checked at compile time (as ccache's statistics and DCGM's
// error metadata are). docs/doctor.md, "Finding codes".
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace peergate::model {

enum class Severity { error, warning, info };

// "error", "warning", "info".
std::string_view to_string(Severity severity);

enum class FindingCode : std::uint8_t {
    // the driver and the node
    no_nvidia_driver,
    driver_version_mismatch,
    topology_unreadable,
    single_gpu,
    nvswitch_fabric_not_ready,
    nvswitch_fabric_degraded,
    mig_enabled,
    mig_mode_pending,
    // peer copies
    pcie_p2p_under_translating_iommu,
    p2p_layers_disagree,
    nvlink_status_disagrees,
    p2p_not_supported,
    p2p_slower_than_staged,
    p2p_slower_than_peers,
    acs_redirect,
    probe_data_lost,
    probe_sm_path_lost,
    probe_inconclusive,
    probe_intact,
    cached_probe_data_lost,
    cached_probe_intact,
    vllm_p2p_cache_trusted,
    sglang_p2p_cache_trusted,
    // links
    nvlink_down,
    nvlink_errors,
    nvlink_errors_under_load,
    pcie_link_narrow,
    nic_link_narrow,
    pcie_aer_errors,
    pcie_aer_errors_under_load,
    nic_aer_errors,
    acs_redirect_nic,
    gdr_no_peer_memory,
    // the kernel log
    xid,   // id "xid_<n>": Finding::number holds n
    sxid,  // id "sxid_<n>": Finding::number holds n
    dmar_fault_gpu,
    dmar_fault_other_device,
    amd_vi_fault_gpu,
    amd_vi_fault_other_device,
    pcie_aer_logged_corrected,
    pcie_aer_logged_nonfatal,
    pcie_aer_logged_fatal,
    kernel_log_truncated,
    // the NCCL topology file
    nccl_topo_file_false_nvlink,
    nccl_topo_file_malformed,
    nccl_topo_file_unchecked,
    // nccl-log
    nccl_nvlink_unused,
    nccl_transport_unverified,
    nccl_p2p_disabled_by_environment,
    nccl_p2p_level_set_by_environment,
    nccl_setting_differs_between_ranks,
    nccl_graph_worse_than_topology,
    nccl_net_without_gdr,
    nccl_init_incomplete,
    nccl_no_connection_lines,
    nccl_lines_skipped,
    nccl_log_capped,
    nccl_diag_edge_failed,
    nccl_ras_process_dead,
    nccl_ras_process_unresponsive,
    nccl_ras_ranks_missing,
    nccl_ras_check_issue,
    // watch
    watch_unavailable,
    watch_counters_unavailable,
    watch_gpu_idle,
    watch_p2p_unused,
    watch_sampling_stopped,
    count_  // keep last: the table below has one row per code before it
};

// What a finding means beyond its severity; a code may carry several.
enum FindingFlag : unsigned {
    kNoFlags = 0,
    kNodeUnusable = 1U << 0,      // no CUDA program can start on the node
    kPeerCopiesUnsafe = 1U << 1,  // PCIe peer copies here are not to be trusted
    kMarksGpu = 1U << 2,          // a drawing marks the GPUs it names with `label`
    kDataLost = 1U << 3,          // data moved by peergate came back wrong or not at all
};

// How the finding knows what it says, weakest last: a headline is the strongest evidence
// among the worst findings (a proven loss outranks the hypothesis that predicted it).
enum class Evidence : std::uint8_t { measured, logged, reported, inferred };

struct FindingMeta {
    FindingCode code;
    std::string_view id;  // the stable snake_case id; for xid and sxid the prefix of "xid_<n>"
    Severity severity;    // the usual one; a rule may raise or lower it with reason
    unsigned flags;       // FindingFlag bits
    Evidence evidence;
    std::string_view label;  // a few words for a drawing or a table
};

// The row of `code`.
const FindingMeta& meta(FindingCode code);

// Whether `code` carries `flag`.
bool has_flag(FindingCode code, FindingFlag flag);

// The code's id; for xid and sxid "xid_<number>".
std::string_view id(FindingCode code);

// The code an id names ("xid_79" gives xid and 79 in `number`); nullopt: not a known code.
std::optional<FindingCode> parse_finding_code(std::string_view text, int* number = nullptr);

inline constexpr std::size_t kFindingCodeCount = static_cast<std::size_t>(FindingCode::count_);

}  // namespace peergate::model
