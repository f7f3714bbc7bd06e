// SPDX-License-Identifier: Apache-2.0
// What NCCL's own checks said in a log: the active P2P diagnostics of NCCL 2.31
// (NCCL_RUN_DIAGNOSTICS=1: one word written and read back per directed pair NCCL already
// calls P2P-eligible, reported as "NCCL DIAG" lines, with "Diagnostics P2P" INFO lines per
// edge), and the RAS subsystem (NCCL 2.24+: its INFO lines, an `ncclras` report or monitor
// event pasted into the log, and the 2.31 RAS diagnostics). Plain values; the reader is
// sources/nccl/nccl_diag_records, the meaning policy/nccl/diagnostics.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace peergate::model {

// What one P2P diagnostics line says about its edge.
enum class NcclDiagKind {
    tested,   // "Diagnostics P2P import|write|read srcRank=..": NCCL tested the edge
    skipped,  // "Diagnostics P2P skip ... reason=indirect": routed through another GPU
    failed,   // "NCCL DIAG [INFO] p2p: write mismatch srcRank=..": the edge failed
    report,   // a line of the report that names no edge: the summary, "setup failed on rank"
};

// "tested", "skipped", "failed", "report".
std::string_view to_string(NcclDiagKind kind);

// One distinct P2P diagnostics line; identical lines repeated add to `count`.
struct NcclDiagLine {
    std::string host;  // the line's host prefix ("" when it had none)
    NcclDiagKind kind = NcclDiagKind::tested;
    // tested/skipped: the phase ("import", "write", "read", "skip"); failed: NCCL's words
    // for the failure ("write mismatch", "peer-memory import failed"); report: "".
    std::string check;
    std::optional<int> src_rank;
    std::optional<int> dst_rank;
    std::optional<int> src_cuda_dev;
    std::optional<int> dst_cuda_dev;
    std::optional<int> src_nvml_dev;  // = nvidia-smi index
    std::optional<int> dst_nvml_dev;
    std::string path;      // NCCL's path type: "NVL", "PIX", "SYS"
    std::string handle;    // "DIRECT", "LEGACY_CUDA_IPC", "CUMEM_POSIX_FD", ...
    bool problem = false;  // a report line tagged [INFO] (NCCL: "may require review")
    std::optional<std::uint64_t> passed;  // the summary: peer accesses that passed
    std::optional<std::uint64_t> tested;  // and those tested
    std::string text;                     // NCCL's words, from "p2p:" or "Diagnostics P2P" on
    std::uint64_t count = 1;

    friend bool operator==(const NcclDiagLine&, const NcclDiagLine&) = default;
};

// What one RAS line reports.
enum class NcclRasKind {
    dead,          // a process declared dead: "RAS declaring peer .. as DEAD", "PEER_DEAD"
    unresponsive,  // "RAS keep-alive timeout warning (5s) on socket connection with .."
    missing,       // "Missing communicator data from 1 rank", "The missing rank: 21"
    timeout,       // "Encountered 2 communication timeouts while gathering .."
    mismatch,      // "Communicator ranks have different status" (often transient)
    check_ok,      // RAS diagnostics: "NCCL DIAG [OK]   GPU inventory: .."
    check_issue,   // RAS diagnostics: "NCCL DIAG [INFO] NCCL environment: mismatch .."
};

// "dead", "unresponsive", "missing", "timeout", "mismatch", "check_ok", "check_issue".
std::string_view to_string(NcclRasKind kind);

// True for the kinds that report a dead, unresponsive or missing rank or a failed check.
bool is_problem(NcclRasKind kind);

// One distinct RAS line; identical lines repeated add to `count`.
struct NcclRasLine {
    std::string host;  // the line's host prefix; "" for ncclras output, which has none
    NcclRasKind kind = NcclRasKind::dead;
    std::string node;  // the process's node as RAS names it: "10.0.0.2", "10.0.0.2<28028>"
    std::optional<int> pid;
    std::optional<int> gpu;   // "managing GPU 5"
    std::optional<int> rank;  // "The missing rank: 21"
    std::string text;         // NCCL's words
    std::uint64_t count = 1;

    friend bool operator==(const NcclRasLine&, const NcclRasLine&) = default;
};

}  // namespace peergate::model
