// SPDX-License-Identifier: Apache-2.0
// Reads the P2P bandwidth samples of a peergate.bench/v1 result for `place --bandwidth`
// and `doctor --bandwidth` (which also takes each pair's staged_gbps).
#pragma once

#include "policy/placement.hpp"
#include "util/expected.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace peergate::cli {

// Accepts {"schema": "peergate.bench/v1", "pairs" | "cells": [{"src": 0, "dst": 1,
// "p2p_gbps" | "gbps" | "bandwidth_gbps": 48.2[, "staged_gbps": 12.0]}, ...]}. Entries
// whose value is null (not measured) are skipped. An error names what is missing.
util::Expected<std::vector<policy::BandwidthSample>> parse_bench_samples(std::string_view text);

// Reads the file and parses it; the error names the file.
util::Expected<std::vector<policy::BandwidthSample>> read_bench_samples(const std::string& path);

}  // namespace peergate::cli
