// SPDX-License-Identifier: Apache-2.0
// From cells to verdicts: per pair and mode, per pair, for the run, with the exit status
// and the remedy of docs/gate-rules.md §6. Pure.
#pragma once

#include "engine/probe_plan.hpp"
#include "model/probe_result.hpp"

#include <string>
#include <utility>
#include <vector>

namespace peergate::engine {

// What to do when a pair lost data: GGML_CUDA_P2P, the kernel log, the IOMMU remedy.
extern const char* const kDataLossRemedy;
// What to do when copies were intact but an SM path or the handshake lost data: keep NCCL,
// vLLM and SGLang off P2P for the pair; the IOMMU and ACS remedies.
extern const char* const kSmPathRemedy;

// The remedy for a failed result: kDataLossRemedy when copies lost data (or only copies were
// probed), else kSmPathRemedy.
std::string remedy_for(const model::ProbeResult& result);

// data_lost if any cell dropped or corrupted data or lost its flag, else error, else skipped, else
// ok. Skipped SM-path cells of a pair the driver refused the peer mapping for (path staged) are not
// applicable and do not count, unless nothing else is there.
model::PairVerdict pair_verdict(const std::vector<const model::ProbeCell*>& cells);

// An SM-path cell skipped because there is no peer mapping to store or load through.
bool not_applicable(const model::ProbeCell& cell);

// "GPU 0 -> GPU 1, GPU 1 -> GPU 0".
std::string pair_names(const std::vector<std::pair<int, int>>& pairs);

// The whole result: pairs in ordered-pair order, the outcome and its reason (what the data
// showed, on the paths tested, and the paths that did not apply and why: paths_not_applicable).
// `rounds`: how many sweeps the cells sum (a soak's).
model::ProbeResult judge_probe(const ProbePlan& plan,
                               std::vector<model::ProbeCell> cells,
                               int rounds = 1);

// A result for a probe that could not run at all (no driver, fewer than two GPUs ...).
model::ProbeResult cannot_run(std::vector<int> gpus, std::string reason);

// 0 pass, 1 fail (data lost), 2 inconclusive.
int exit_status(const model::ProbeResult& result);

}  // namespace peergate::engine
