// SPDX-License-Identifier: Apache-2.0
// Reads the P2P bandwidth samples of a peergate.bench/v1 result for `place --bandwidth`
// and `doctor --bandwidth` (which also takes each pair's staged_gbps and bidirectional_gbps).
#pragma once

#include "model/bandwidth_sample.hpp"
#include "model/gpu.hpp"
#include "util/expected.hpp"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace peergate::sources::documents {

// A peergate.bench/v1 result as placement and the doctor read it.
struct BenchFile {
    std::vector<model::BandwidthSample> samples;
    // The GPUs it was measured on, when the writer recorded them ("gpu_uuids" beside "gpus";
    // files from before that field have none): nvidia-smi index and UUID.
    std::vector<std::pair<int, std::string>> gpu_uuids;
    std::string host;  // informational; "" when not recorded
};

// Accepts {"schema": "peergate.bench/v1", "pairs" | "cells": [{"src": 0, "dst": 1,
// "p2p_gbps" | "gbps" | "bandwidth_gbps": 48.2[, "staged_gbps": 12.0][, "bidirectional_gbps":
// 95.1]}, ...]}. Entries
// whose value is null (not measured) are skipped. An error names what is missing.
util::Expected<BenchFile> parse_bench_file(std::string_view text);

// Reads the file and parses it; the error names the file.
util::Expected<BenchFile> read_bench_file(const std::string& path);

// Whether `file` (read from `path`) was measured on this machine's GPUs `here`: every GPU a
// sample names must be here, and a recorded UUID must be the one here at that index. A bench
// result from another node (a shared file system makes that easy) would weigh this machine's
// pairs by another machine's links; the error says which GPU differs.
util::Expected<void> check_bench_matches(const BenchFile& file,
                                         const std::string& path,
                                         const std::vector<model::Gpu>& here);

}  // namespace peergate::sources::documents
