// SPDX-License-Identifier: Apache-2.0
// What `export` and `fleet node` render: the doctor's facts, the gate's decision on the
// same read of the host, and the run's own details (when it finished, the node's name).
#pragma once

#include "cli/doctor_gather.hpp"
#include "cli/invocation.hpp"
#include "report/export_facts.hpp"
#include "util/expected.hpp"

#include <string>

namespace peergate::cli {

struct ExportRequest {
    DoctorOptions doctor;
    std::string node_name;  // "" : SLURMD_NODENAME, else the short host name
    std::string gres_type;
    int expiry_hours = 0;
    bool pci_tree = false;  // nccl-topo: read the PCI tree (NICs, sysfs attributes, cpumaps)
};

util::Expected<report::ExportFacts> gather_export_facts(const Invocation& inv,
                                                        const ExportRequest& request);

}  // namespace peergate::cli
