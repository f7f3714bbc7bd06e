// SPDX-License-Identifier: Apache-2.0
// The one assessment of a machine (docs/assessment.md): from the facts the doctor gathered, its
// findings and the gate's decision, what each ordered pair, the host and the node *are*. Every
// output (text, JSON, HTML, SVG, DOT, Prometheus, NFD, fleet) reads this and maps its states
// through its own presentation table; none decides again. Pure.
#pragma once

#include "model/host_facts.hpp"
#include "model/probe_result.hpp"
#include "policy/doctor/doctor.hpp"
#include "policy/doctor/node_state.hpp"

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace peergate::policy::assess {

// What an ordered pair is, best first; a pair takes the worst state its evidence supports
// (in the spirit of NCCL's PATH_NVL < PATH_PIX < ... < PATH_SYS).
enum class PairState : std::uint8_t {
    nvlink,              // an NVLink path: P2P allowed without a probe
    pcie_proven,         // PCIe, and the probe moved and compared data on it: intact
    pcie_unverified,     // PCIe, no capability layer refuses, no data moved yet
    staged_only,         // a capability layer refuses peer access: copies go through the host
    slower_than_staged,  // a bench measured P2P slower than copying through host memory
    probe_error,         // the probe could not finish on this pair: doubt, never a pass
    data_lost,           // the probe saw data lost on this pair (this run or on this boot)
};

inline constexpr PairState kAllPairStates[] = {PairState::nvlink,
                                               PairState::pcie_proven,
                                               PairState::pcie_unverified,
                                               PairState::staged_only,
                                               PairState::slower_than_staged,
                                               PairState::probe_error,
                                               PairState::data_lost};

// The state's stable id in machine outputs (doctor JSON's `state`, Prometheus's `state` label):
// "nvlink", "pcie_proven", "pcie_unverified", "staged_only", "slower_than_staged",
// "probe_error", "data_lost". Words and colours are each renderer's own.
std::string_view id(PairState state);

// Where a pair's probe verdict came from.
enum class ProbeSource : std::uint8_t {
    none,      // not probed: no probe this run and none cached for this boot
    this_run,  // doctor --probe
    cached,    // the verdict cache, written on this boot and machine identity
};

// "none", "this_run", "cached".
std::string_view id(ProbeSource source);

// "present", "absent", "unknown".
std::string_view id(model::SilentDropRisk risk);

struct PairAssessment {
    int src = 0;  // nvidia-smi indices
    int dst = 0;
    PairState state = PairState::pcie_unverified;
    bool nvlink = false;   // the topology joins the two by NVLink
    bool capable = false;  // NVML (read and write OK) and the CUDA driver both say yes
    ProbeSource probe = ProbeSource::none;
    std::optional<model::PairVerdict> verdict;   // the pair's probe verdict, where probed
    std::vector<model::ProbePathVerdict> paths;  // each path the probe tested, in run order
    bool redirected = false;  // ACS sends the pair's traffic up to the root complex

    // The capability layers said yes and the data said no: the case peergate exists for.
    bool contradiction() const { return capable && state == PairState::data_lost; }
};

// The probe evidence the node carries as a whole: this run's, else the cached one's.
struct ProbeEvidence {
    ProbeSource source = ProbeSource::none;
    std::optional<model::ProbeOutcome> outcome;  // nullopt: none
};

struct HostAssessment {
    model::SilentDropAssessment silent_drop;
};

struct Assessment {
    std::vector<PairAssessment> pairs;  // every ordered pair of the GPUs examined
    HostAssessment host;
    doctor::NodeVerdict node;
    ProbeEvidence probe;
    doctor::Verdict verdict = doctor::Verdict::inconclusive;  // the doctor's

    // The ordered pair src -> dst, if examined.
    const PairAssessment* pair(int src, int dst) const;

    // The worse of the two directions of {a, b}; nullopt when neither was examined.
    std::optional<PairState> worst_of(int a, int b) const;
};

// The pair's state from its facts and the probe's verdict on it (nullopt: not probed).
PairState pair_state(const doctor::PairLayers& layers, const model::ProbePair* probed);

Assessment assess(const doctor::DoctorInput& input,
                  const doctor::DoctorReport& report,
                  const doctor::GateOutcome& gate);

}  // namespace peergate::policy::assess
