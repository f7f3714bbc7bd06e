// SPDX-License-Identifier: Apache-2.0
// What `peergate export` renders: the doctor's facts and verdict and the gate's decision for
// the GPUs examined, plus what each format needs of the run itself (when it finished, the
// node's name). The renderers (export_<format>.hpp) are pure: the same facts give the same
// bytes, so golden tests and the ecosystem's own checkers see exactly what a node writes.
#pragma once

#include "model/cpu_identity.hpp"
#include "model/gpu.hpp"
#include "model/pci_attributes.hpp"
#include "model/pci_port.hpp"
#include "model/topology.hpp"
#include "policy/assess/assessment.hpp"
#include "policy/doctor/doctor.hpp"
#include "policy/doctor/node_state.hpp"
#include "policy/placement/nic_affinity.hpp"

#include <compare>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace peergate::report::exports {

// One NVLink error counter as a textfile keeps it: the GPU by UUID (an index can name another
// board after a repair), the link index, the counter's name (model::kNvlinkCounterNames).
struct NvlinkCounterKey {
    std::string uuid;
    int link = 0;
    std::string counter;

    friend auto operator<=>(const NvlinkCounterKey&, const NvlinkCounterKey&) = default;
};

struct ExportRun {
    std::string version;             // peergate's
    std::int64_t finished_unix = 0;  // seconds
    double duration_seconds = 0;
    // The last healthy run before this one, carried over from the file being replaced, so
    // that an unhealthy run does not erase when the node was last known good.
    std::optional<double> previous_success_unix;
    // Each link's NVLink error counters in that file. NVML is not asked about a link that is
    // not active, so a link that went down keeps the counts last read rather than fall to
    // none, which Prometheus would take for a reset (docs/export.md, prometheus).
    std::map<NvlinkCounterKey, double> previous_link_errors;
    std::string node_name;            // gres: slurmd's NodeName
    std::string gres_type;            // gres: Type= for every GPU; "" derives it from the name
    std::int64_t expiry_seconds = 0;  // nfd: labels expire this long after the run; 0 never
    // nfd: also write the `timestamp` label. It changes at every run, so NFD updates the Node
    // at every run; the expiry directive already says how fresh the labels are.
    bool nfd_timestamp = false;
    // dot: draw every pair's PCIe path, also between GPUs NVLink joins (--dot-all-paths).
    bool dot_all_paths = false;
};

// The gate's decision for the GPUs examined (rule: e.g. "every_pair_nvlink").
using ExportGate = policy::doctor::GateOutcome;

struct ExportFacts {
    ExportRun run;
    policy::doctor::DoctorInput doctor;
    policy::doctor::DoctorReport report;
    ExportGate gate;
    // What each pair, the host and the node are (policy/assess): every format reads this.
    policy::assess::Assessment assessment;
    std::map<int, int> device_minors;  // per GPU index: N of /dev/nvidiaN, where read
    std::map<int, int> logical_cores;  // per OS CPU number: Slurm's core index; empty: unread
    // sysfs's identity and link of each examined GPU and of the ports above it, where read.
    std::map<model::PciAddress, model::PciAttributes> pci;
    std::map<int, std::string> numa_cpumaps;  // per NUMA node of those: sysfs's cpumap, where read
    model::CpuIdentity cpu;  // nccl-topo: the CPUs' arch, vendor, family and model, where read
    std::vector<model::Nic> nics;  // the host's network functions (nccl-topo places them)
    // nccl-topo: bus ids to write in place of the host's (--bus-id HOST=VM, for a VM's file).
    std::map<model::PciAddress, model::PciAddress> bus_renames;
};

// The GPUs examined (--gpus, else every GPU described), in index order.
std::vector<model::Gpu> examined_gpus(const ExportFacts& facts);

// The NVLink count between two GPUs: NV<n> gives n, any other label 0.
int nvlinks_between(const model::Topology& topology, int a, int b);

// The examined pair's layers (src -> dst), if read.
const policy::doctor::PairLayers* pair_layers(const ExportFacts& facts, int src, int dst);

// NVML's walk of GPU `gpu`'s NVLinks, if it completed (facts.doctor.links).
const policy::doctor::GpuLinks* gpu_links(const ExportFacts& facts, int gpu);

// Each NIC's class of path to each of `gpus` (labels[nic][position in gpus]), from the PCIe
// paths sysfs gave the doctor; a GPU whose ports were not read has unknown paths.
policy::placement::NicAffinity examined_nic_affinity(const ExportFacts& facts,
                                                     const std::vector<model::Gpu>& gpus);

// Whether this run found the node healthy (the doctor's verdict).
bool healthy(const ExportFacts& facts);

// The node's one verdict for schedulers (the assessment's), which every format and the fleet's
// line give.
const policy::doctor::NodeVerdict& node_verdict(const ExportFacts& facts);

}  // namespace peergate::report::exports
