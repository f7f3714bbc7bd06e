// SPDX-License-Identifier: Apache-2.0
// What the integrity probe found: one cell per (source, destination, size, mode), one
// verdict per ordered pair, one result for the run (docs/gate-rules.md §6, peergate.probe/v1).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace peergate::model {

// serial: one pair at a time; bidirectional: A->B and B->A at once; concurrent: every
// selected ordered pair at once, each on its own stream, to load the bus as a long prompt does.
enum class ProbeMode { serial, bidirectional, concurrent };

// flag_lost: a handshake cell whose flag never reached the waiting GPU within its budget
// (the deadlock NCCL's resident kernels show); the payload could not be judged.
enum class CellStatus { ok, dropped, corrupted, error, skipped, flag_lost };

enum class PairVerdict { ok, data_lost, error, skipped };

// pass: every pair intact (exit 0); fail: a pair lost data (exit 1); inconclusive (exit 2).
enum class ProbeOutcome { pass, fail, inconclusive };

// direct: peer access enabled, the path llama.cpp takes with GGML_CUDA_P2P; staged: the
// driver refused peer access and stages the copy through host memory.
enum class CopyPath { direct, staged };

enum class VerifySite { device, host };

// How the data crosses (docs/probe.md, "Paths"): ce, a copy-engine transfer
// (cuMemcpyPeerAsync, llama.cpp's GGML_CUDA_P2P); sm_store, a kernel on the source GPU
// storing through the peer mapping (NCCL's P2P transport, vLLM's custom all-reduce);
// sm_load, a kernel on the destination loading through it (NCCL's P2P read mode);
// handshake, a payload then a flag stored by the source while a resident kernel on the
// destination spins on the flag (how those kernels synchronise).
enum class ProbePath { ce, sm_store, sm_load, handshake };

inline constexpr ProbePath kAllProbePaths[] = {
    ProbePath::ce, ProbePath::sm_store, ProbePath::sm_load, ProbePath::handshake};

std::string_view to_string(ProbeMode mode);
std::string_view to_string(CellStatus status);
std::string_view to_string(PairVerdict verdict);
std::string_view to_string(ProbeOutcome outcome);
std::string_view to_string(CopyPath path);
std::string_view to_string(VerifySite site);
// "ce", "sm-store", "sm-load", "handshake".
std::string_view to_string(ProbePath path);

// Why a path did not apply to a pair (docs/probe.md, "Paths"): the driver refused the peer
// mapping, so no kernel can store or load through it and no engine's SM traffic can cross.
enum class NotApplicableWhy { peer_access_refused };

// "peer_access_refused"; parse_not_applicable_why reads it back (nullopt for anything else).
std::string_view to_string(NotApplicableWhy why);
std::optional<NotApplicableWhy> parse_not_applicable_why(std::string_view text);
// "the driver refused peer access": the words a summary gives for it.
std::string_view describe(NotApplicableWhy why);

// The handshake's outcome of a cell: "intact", "data_lost", "flag_lost"; "" for a cell that
// is not a handshake or did not finish.
std::string_view handshake_outcome(CellStatus status);

// "serial", "bidirectional", "concurrent"; nullopt for anything else.
std::optional<ProbeMode> parse_probe_mode(std::string_view text);
std::optional<ProbePath> parse_probe_path(std::string_view text);

struct ProbeCell {
    int src = 0;  // nvidia-smi indices
    int dst = 0;
    std::uint64_t size_bytes = 0;
    ProbeMode mode = ProbeMode::serial;
    int repeats = 0;  // repeats actually run
    CellStatus status = CellStatus::skipped;
    std::uint64_t wrong = 0;    // elements overwritten with wrong data, summed over repeats
    std::uint64_t dropped = 0;  // elements still holding the sentinel, summed over repeats
    std::optional<std::uint64_t> first_bad_offset;  // bytes, in the first failing repeat
    std::optional<double> gbps;                     // 1e9 bytes per second, mean over repeats
    CopyPath path = CopyPath::direct;
    VerifySite verify = VerifySite::host;
    std::string detail;  // why error or skipped
    ProbePath path_kind = ProbePath::ce;
    std::uint64_t flags_lost = 0;  // handshake: repeats whose flag never arrived

    friend bool operator==(const ProbeCell&, const ProbeCell&) = default;
};

// Whether the cell's status says data was lost: dropped, corrupted or a handshake's flag lost.
bool lost_data(const ProbeCell& cell);

// "ce, sm-store, handshake".
std::string path_names(const std::vector<ProbePath>& paths);

// Whether any of the cells counted a dropped or corrupted element or a lost flag (whatever
// their status).
bool any_data_lost(const std::vector<ProbeCell>& cells);

struct ProbeModeVerdict {
    ProbeMode mode = ProbeMode::serial;
    PairVerdict verdict = PairVerdict::skipped;

    friend bool operator==(const ProbeModeVerdict&, const ProbeModeVerdict&) = default;
};

struct ProbePathVerdict {
    ProbePath path = ProbePath::ce;
    PairVerdict verdict = PairVerdict::skipped;

    friend bool operator==(const ProbePathVerdict&, const ProbePathVerdict&) = default;
};

struct ProbePair {
    int src = 0;
    int dst = 0;
    PairVerdict verdict = PairVerdict::skipped;
    std::vector<ProbeModeVerdict> modes;  // one per mode run, in run order
    std::vector<ProbePathVerdict> paths;  // one per path probed, in run order
    std::string detail;
    // The run that gave this verdict: how many sweeps its cells sum, the soak asked for. A
    // verdict cache merges runs, and each pair keeps its own.
    int rounds = 1;
    std::optional<double> soak_s;

    friend bool operator==(const ProbePair&, const ProbePair&) = default;
};

// A path the run could not apply to some ordered pairs, why, and those pairs (src, dst).
struct ProbePathNotApplicable {
    ProbePath path = ProbePath::sm_store;
    NotApplicableWhy why = NotApplicableWhy::peer_access_refused;
    std::vector<std::pair<int, int>> pairs;

    friend bool operator==(const ProbePathNotApplicable&, const ProbePathNotApplicable&) = default;
};

struct ProbeResult {
    ProbeOutcome outcome = ProbeOutcome::inconclusive;
    std::string reason;  // one sentence: why this outcome
    std::vector<int> gpus;
    std::vector<ProbeMode> modes;
    std::vector<ProbePath> paths{ProbePath::ce};  // the paths probed, in run order
    std::vector<ProbeCell> cells;
    std::vector<ProbePair> pairs;
    std::optional<VerifySite> verify;  // where comparison ran; nullopt when nothing ran
    std::string verify_note;           // e.g. why device verification fell back to the host
    std::string remedy;                // on fail: what to do
    int rounds = 1;                    // sweeps of the plan (more than one in a soak)
    std::optional<double> soak_s;      // the soak asked for, seconds; nullopt: one sweep
    // Seconds the devices spent on the transfers: per group, its slowest lane's CUDA-event
    // time, summed (a simulated driver's modelled clock); nullopt when nothing was timed.
    std::optional<double> device_s;
    bool quick = false;  // probe --quick: the pre-launch check
    // The paths that did not apply to some pairs, in path order; empty when every path probed
    // applied to every pair.
    std::vector<ProbePathNotApplicable> paths_not_applicable;

    friend bool operator==(const ProbeResult&, const ProbeResult&) = default;
};

}  // namespace peergate::model
