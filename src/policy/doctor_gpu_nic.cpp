// SPDX-License-Identifier: Apache-2.0
#include "policy/doctor_gpu_nic.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace peergate::policy {

namespace {

model::Finding redirect_finding(const GpuNicPath& first) {
    const std::string port = first.path.port->address.to_sysfs();
    return model::Finding{
        .code = "acs_redirect_nic",
        .severity = model::Severity::warning,
        .gpus = {first.gpu},
        .message = fmt::format(
            "GPU {} and network device {} sit below the same PCIe port ({}), but ACS redirect "
            "is on at {} ({}): GPUDirect RDMA between them (NCCL's GDR) goes up to the root "
            "complex (and its IOMMU) instead of across the switch",
            first.gpu,
            first.nic.to_sysfs(),
            first.path.shared->to_sysfs(),
            port,
            first.path.port->acs->describe()),
        .remedy = fmt::format(
            "On bare metal, turn ACS redirect off on the switch's downstream ports (a BIOS "
            "setting on many servers; the kernel parameter pci=disable_acs_redir={}; or, until "
            "reboot, 'setpci -s {} ECAP_ACS+0x6.w=0000' as root, as NCCL's troubleshooting "
            "guide shows). Until then NCCL_NET_GDR_LEVEL=LOC keeps NCCL from GPUDirect RDMA (it "
            "stages through host memory). Under a hypervisor ACS keeps guests apart: leave it "
            "on.",
            port,
            port)};
}

}  // namespace

std::vector<GpuNicPath> gpu_nic_paths(const DoctorInput& input) {
    std::vector<GpuNicPath> out;
    for (const auto& [gpu, ports] : input.ports) {
        for (const auto& nic : input.nics) {
            auto path = acs_path(ports, nic.ports);
            if (path.state != AcsPath::State::not_shared) {
                out.push_back(GpuNicPath{.gpu = gpu, .nic = nic.device, .path = std::move(path)});
            }
        }
    }
    return out;
}

std::optional<model::Finding> acs_redirect_nic_finding(const std::vector<GpuNicPath>& paths) {
    std::optional<model::Finding> finding;
    std::size_t more = 0;
    for (const auto& path : paths) {
        if (path.path.state != AcsPath::State::redirect) {
            continue;
        }
        if (!finding) {
            finding = redirect_finding(path);
        } else {
            ++more;
            finding->gpus.push_back(path.gpu);
        }
    }
    if (finding) {
        std::sort(finding->gpus.begin(), finding->gpus.end());
        finding->gpus.erase(std::unique(finding->gpus.begin(), finding->gpus.end()),
                            finding->gpus.end());
        if (more > 0) {
            finding->message +=
                fmt::format("; {} more GPU-NIC pair{} likewise", more, more == 1 ? "" : "s");
        }
    }
    return finding;
}

}  // namespace peergate::policy
