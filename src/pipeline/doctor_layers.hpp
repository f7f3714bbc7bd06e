// SPDX-License-Identifier: Apache-2.0
// The doctor's capability layers per ordered pair: NVML's P2P status for every caps index
// and cuDeviceCanAccessPeer, read by gather's own steps (NVML and the CUDA driver behind their
// watchdog, matched to the GPUs by PCI bus id), so a simulated machine answers the same way.
#pragma once

#include "model/topology.hpp"
#include "pipeline/context.hpp"
#include "policy/doctor/doctor.hpp"
#include "sources/nvml/nvml_record.hpp"
#include "util/expected.hpp"

namespace peergate::pipeline {

// Fills input.pairs for every ordered pair of the GPUs examined (input.selection; empty:
// all of `topology`), labelled from `topology` and read from `nvml_record` (the topology
// tier's; its error is the layer note) and the CUDA driver, and input.ports (the PCIe ports above
// each GPU, from sysfs, for the pairs' ACS). What a layer could not tell stays unread and
// input.layer_notes says why.
void read_pair_layers(const Context& ctx,
                      const model::Topology& topology,
                      util::Expected<nvml::NvmlRecord> nvml_record,
                      policy::doctor::DoctorInput& input);

// --probe: reads the error counters again after the probe, so the doctor can tell what its
// load added: every GPU's NVLinks in a new NVML session (input.links_after_probe) and the AER
// counters of the devices read before (input.aer_after_probe).
void read_counters_after_probe(const Context& ctx,
                               const model::Topology& topology,
                               policy::doctor::DoctorInput& input);

}  // namespace peergate::pipeline
