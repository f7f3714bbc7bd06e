// SPDX-License-Identifier: Apache-2.0
#include "policy/doctor_gpu_nic.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

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

std::optional<model::Finding> peer_memory_finding(const std::vector<GpuNicPath>& paths,
                                                  const model::HostFacts& host) {
    if (paths.empty() || !host.peer_memory_module || !host.peer_memory_module->empty()) {
        return std::nullopt;
    }
    std::vector<int> gpus;
    for (const auto& path : paths) {
        gpus.push_back(path.gpu);
    }
    gpus.erase(std::unique(gpus.begin(), gpus.end()), gpus.end());  // paths come by GPU
    return model::Finding{
        .code = "gdr_no_peer_memory",
        .severity = model::Severity::info,
        .gpus = gpus,
        .message = fmt::format(
            "GPU{} {} share{} a PCIe switch with a network device, but no GPUDirect RDMA "
            "peer-memory module is loaded (neither nvidia_peermem nor nv_peer_mem): NCCL's IB "
            "transport can then reach GPU memory only through DMA-BUF, and otherwise stages "
            "network traffic through host memory",
            gpus.size() == 1 ? "" : "s",
            fmt::join(gpus, ","),
            gpus.size() == 1 ? "s" : ""),
        .remedy =
            "'modprobe nvidia-peermem' (it ships with the driver; list it in "
            "/etc/modules-load.d to load it at boot), or use DMA-BUF (Linux 5.12+ with the "
            "open GPU kernel modules). NCCL_DEBUG=INFO then prints 'GPU Direct RDMA ... "
            "enabled for HCA'; `peergate nccl-log` flags receives without it "
            "(nccl_net_without_gdr)."};
}

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
