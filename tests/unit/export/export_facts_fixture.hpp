// SPDX-License-Identifier: Apache-2.0
// ExportFacts built from real `nvidia-smi topo -m` fixtures, for the renderers' tests.
#pragma once

#include "report/exports/facts.hpp"
#include "sources/smi/topo_m_parser.hpp"
#include "support/fixture_files.hpp"

#include <gtest/gtest.h>

#include <string>

namespace peergate::test {

// The fixture's topology, every ordered pair's layers (NVML "OK" for every caps index, CUDA
// yes), a healthy verdict, P2P allowed, and a run that finished at 2026-11-29T09:00:00Z.
inline report::exports::ExportFacts facts_from_topo_m(const std::string& fixture) {
    report::exports::ExportFacts facts;
    auto topology = sources::smi::parse_topo_m(read_fixture("topo_m", fixture));
    EXPECT_TRUE(topology.has_value()) << fixture;
    if (!topology) {
        return facts;
    }
    for (auto& gpu : topology->gpus) {
        gpu.name = "NVIDIA H100 80GB HBM3";
        gpu.uuid = "GPU-" + std::to_string(gpu.index);
    }
    for (const auto& a : topology->gpus) {
        for (const auto& b : topology->gpus) {
            if (a.index != b.index) {
                policy::doctor::PairLayers layers{.src = a.index, .dst = b.index};
                layers.label = topology->label(a.index, b.index)->to_token();
                layers.nvml.fill("OK");
                layers.cuda_can_access_peer = true;
                facts.doctor.pairs.push_back(layers);
            }
        }
    }
    facts.doctor.discovery.topology = std::move(*topology);
    facts.report.verdict = policy::doctor::Verdict::healthy;
    facts.gate = {.p2p = true, .rule = "every_pair_nvlink", .reason = "every pair is NVLink"};
    facts.run = {.version = "0.1.0",
                 .finished_unix = 1795942800,
                 .duration_seconds = 1.5,
                 .node_name = "gpu-node-07"};
    return facts;
}

}  // namespace peergate::test
