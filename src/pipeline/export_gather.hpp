// SPDX-License-Identifier: Apache-2.0
// What `export` and `fleet node` render: the doctor's facts, the gate's decision on the
// same read of the host, and the run's own details (when it finished, the node's name).
#pragma once

#include "pipeline/context.hpp"
#include "pipeline/doctor.hpp"
#include "report/exports/facts.hpp"
#include "util/expected.hpp"

#include <string>

namespace peergate::pipeline {

struct ExportRequest {
    DoctorOptions doctor;
    std::string node_name;  // "" : SLURMD_NODENAME, else the short host name
    std::string gres_type;
    int expiry_hours = 0;
    bool nfd_timestamp = false;  // nfd: the timestamp label too (--nfd-timestamp)
    bool dot_all_paths = false;  // dot: every pair's PCIe path too (--dot-all-paths)
    bool pci_tree = false;       // nccl-topo: read the PCI tree (NICs, sysfs attributes, cpumaps)
    // The peergate binary the gate runs `cuda-visible` in (GateRequest::identity_helper), so
    // an export's p2p verdict is the one `peergate gate --gpus all` gives on this node.
    std::string identity_helper;
};

// This host's short name (fleet's lines name the node they ran on by it).
std::string this_host_short_name();

util::Expected<report::exports::ExportFacts> gather_export_facts(const Context& ctx,
                                                                 const ExportRequest& request);

}  // namespace peergate::pipeline
