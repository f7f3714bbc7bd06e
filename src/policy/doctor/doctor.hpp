// SPDX-License-Identifier: Apache-2.0
// The doctor's reasoning: from what each layer answered to findings and a verdict. Pure.
#pragma once

#include "model/discovery.hpp"
#include "model/finding.hpp"
#include "model/gpu_fabric.hpp"
#include "model/host_facts.hpp"
#include "model/kernel_event.hpp"
#include "model/mig_mode.hpp"
#include "model/nccl_topo_file.hpp"
#include "model/nic.hpp"
#include "model/nvlink_errors.hpp"
#include "model/pci_aer.hpp"
#include "model/pci_attributes.hpp"
#include "model/pci_port.hpp"
#include "model/probe_result.hpp"
#include "policy/gate/vllm_p2p_cache.hpp"

#include <array>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace peergate::policy::doctor {

// Whether a runtime part could be found, and what exactly was tried.
struct PartStatus {
    std::string what;  // "NVML library", "CUDA driver library", "nvidia-smi"
    bool found = false;
    std::string detail;  // the path that loaded, or why none did
};

// nvmlDeviceGetP2PStatus's caps indices in NVML's order (docs/driver-facts.md), as JSON names them.
inline constexpr std::array<std::string_view, 5> kP2pCaps = {
    "read", "write", "nvlink", "atomics", "prop"};

// What the capability layers said about one ordered pair of GPUs (nvidia-smi indices). The
// doctor shows them beside the topology because on the silent-drop hosts they all say yes.
struct PairLayers {
    int src = 0;
    int dst = 0;
    std::string label;  // the topology's token for the pair ("NV4", "NODE", ...)
    // NVML's P2P status per caps index (kP2pCaps order): OK CNS GNS TNS DR NS U; "" not read.
    std::array<std::string, kP2pCaps.size()> nvml;
    std::optional<bool> cuda_can_access_peer;  // cuDeviceCanAccessPeer; nullopt: not read
    std::string probe;       // --probe: the pair's verdict (ok, data_lost, error, skipped); "" none
    std::string probe_path;  // --probe: "direct" (peer access) or "staged" (via host)
    std::optional<double> probe_gbps;  // --probe: the largest serial copy's rate, 1e9 B/s
    // --probe: the pair's verdict on each path probed (docs/probe.md, "Paths").
    std::vector<model::ProbePathVerdict> probe_paths;
    std::string acs;  // where ACS sends the pair's traffic (policy/doctor/acs.hpp); "" not read
    // --bandwidth: what a `peergate bench` result measured for the pair, 1e9 B/s.
    std::optional<double> p2p_gbps;
    std::optional<double> staged_gbps;
    std::optional<double> bidirectional_gbps;  // both ways at once, both counted
};

// One GPU's NVLinks as NVML walked them (docs/driver-facts.md): every link index the GPU answers
// for, and which of them are not active. Only GPUs whose walk completed are listed.
struct GpuLinks {
    int gpu = 0;  // nvidia-smi index
    std::string name;
    int slots = 0;          // link indices NVML answers for (18 on H100, 12 on A100)
    std::vector<int> down;  // the indices that are not active, ascending
    int to_switch = 0;      // active links whose far end is an NVSwitch
    std::vector<model::LinkErrors> errors;  // the active links' error counters, by link

    int up() const { return slots - static_cast<int>(down.size()); }
};

struct DoctorInput {
    std::vector<PartStatus> parts;
    model::Discovery discovery;
    model::HostFacts host;
    std::string simulate_hint;  // a built-in machine to suggest for a demo; "" for none
    std::vector<model::KernelEvent> kernel_events;
    std::string kernel_log_source;  // where the kernel log came from, or why none was read
    std::uint64_t kernel_log_dropped_bytes = 0;  // of a piped log, read before what was kept
    std::vector<int> selection;     // --gpus: the GPUs examined, ascending; empty = every GPU
    std::vector<PairLayers> pairs;  // every ordered pair of the GPUs examined
    std::vector<std::string> layer_notes;     // why a capability layer could not be read
    std::optional<model::ProbeResult> probe;  // --probe: data moved and compared just now
    // Without --probe: the verdict cache's result, when written on this boot and identity.
    std::optional<model::ProbeResult> cached_probe;
    std::string cached_probe_written_at;               // its written_at (UTC, ISO 8601)
    std::map<int, std::vector<model::PciPort>> ports;  // per GPU: the PCIe ports above it
    std::vector<model::Nic> nics;  // the host's network functions, their ports and names
    std::map<int, bool> dma_buf;   // per GPU: CUDA's DMA-BUF answer; absent: not read
    int cuda_driver_version = 0;   // cuDriverGetVersion (12080 is CUDA 12.8); 0: not read
    int cuda_open_status = 0;      // the CUresult that kept the CUDA driver from opening; 0 none
    std::map<model::PciAddress, model::PciAttributes> pci;  // sysfs of those GPUs and ports
    std::map<model::PciAddress, model::PciAer> aer;         // their AER counters, where AER is on
    std::map<model::PciAddress, model::PciAer> aer_after_probe;  // --probe: read again after
    std::vector<GpuLinks> links;              // per GPU NVML could walk, every GPU of the host
    std::vector<GpuLinks> links_after_probe;  // --probe: the same, read again after it
    std::map<int, model::GpuFabric> fabric;   // GPUs NVML places on an NVSwitch fabric, every GPU
    std::map<int, model::MigMode> mig;        // GPUs NVML gives a MIG mode, every GPU
    std::vector<model::VllmP2pCache> vllm_p2p_caches;    // vLLM's cached P2P answers for this user
    std::vector<model::VllmP2pCache> sglang_p2p_caches;  // SGLang's (~/.cache/sglang)
    std::optional<model::NcclTopoFile> nccl_topo_file;   // the one NCCL jobs here will read
};

enum class Verdict { healthy, problems, inconclusive };

// "healthy", "problems", "inconclusive".
std::string_view to_string(Verdict verdict);

struct DoctorReport {
    Verdict verdict = Verdict::inconclusive;
    std::vector<model::Finding> findings;
};

// Whether GPU `gpu` is among those examined (input.selection; empty: every GPU).
bool is_examined(const DoctorInput& input, int gpu);

DoctorReport diagnose(const DoctorInput& input);

// Exit status for a verdict: 0 healthy, 1 problems, 2 inconclusive.
int exit_status(Verdict verdict);

}  // namespace peergate::policy::doctor
