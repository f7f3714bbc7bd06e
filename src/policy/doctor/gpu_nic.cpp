// SPDX-License-Identifier: Apache-2.0
#include "policy/doctor/gpu_nic.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <string>

namespace peergate::policy::doctor {

namespace {

model::Finding redirect_finding(const GpuNicPath& first) {
    const std::string port = first.path.port->address.to_sysfs();
    return model::Finding{
        .code = model::FindingCode::acs_redirect_nic,
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

// Only the open kernel module exports GPU memory as DMA-BUF.
bool proprietary_module(const model::HostFacts& host) {
    return host.nvidia_module &&
           host.nvidia_module->flavour == model::KernelModuleFlavour::proprietary;
}

// Linux 5.12 is the first whose RDMA stack registers DMA-BUF memory; nullopt: release unread.
std::optional<bool> kernel_takes_dma_buf(const model::HostFacts& host) {
    return model::kernel_at_least(host.kernel_release, 5, 12);
}

// Whether DMA-BUF can stand in for a peer-memory module on the GPUs beside a NIC: the CUDA
// driver's answer per GPU, and the kernel.
struct DmaBufRoute {
    std::vector<int> gpus;     // those beside a NIC, ascending
    std::vector<int> without;  // the driver said no
    std::vector<int> unread;   // the driver did not answer
    std::optional<bool> kernel_new_enough;

    bool carries() const { return without.empty() && unread.empty() && kernel_new_enough != false; }

    std::string describe(const model::HostFacts& host) const {
        const std::string staged =
            "NCCL's IB transport then stages network traffic through host memory";
        if (kernel_new_enough == false) {
            return fmt::format(
                "and Linux {} predates 5.12, so the NIC cannot use DMA-BUF either: {}",
                host.kernel_release,
                staged);
        }
        if (!without.empty()) {
            const bool proprietary = proprietary_module(host);
            return fmt::format("and the CUDA driver reports no DMA-BUF support on GPU{} {}{}: {}",
                               without.size() == 1 ? "" : "s",
                               fmt::join(without, ","),
                               proprietary ? fmt::format(" (the proprietary kernel module {}: only "
                                                         "the open one exports DMA-BUF)",
                                                         host.nvidia_module->version)
                                           : "",
                               staged);
        }
        return "and whether DMA-BUF can stand in was not read (the CUDA driver did not answer "
               "CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED): without it " +
               staged;
    }
};

DmaBufRoute dma_buf_route(const std::vector<GpuNicPath>& paths,
                          const model::HostFacts& host,
                          const std::map<int, bool>& dma_buf) {
    DmaBufRoute route;
    for (const auto& path : paths) {
        route.gpus.push_back(path.gpu);
    }
    route.gpus.erase(std::unique(route.gpus.begin(), route.gpus.end()), route.gpus.end());
    for (int gpu : route.gpus) {
        const auto answer = dma_buf.find(gpu);
        if (answer == dma_buf.end()) {
            route.unread.push_back(gpu);
        } else if (!answer->second) {
            route.without.push_back(gpu);
        }
    }
    route.kernel_new_enough = kernel_takes_dma_buf(host);
    return route;
}

std::string peer_memory_remedy(const DmaBufRoute& route, const model::HostFacts& host) {
    std::string remedy =
        "'modprobe nvidia-peermem' (it ships with the driver; list it in /etc/modules-load.d to "
        "load it at boot)";
    if (proprietary_module(host)) {
        remedy +=
            ", or install the open GPU kernel modules (the driver's -open packages), which "
            "export GPU memory as DMA-BUF";
    } else {
        remedy += ", or DMA-BUF (the open GPU kernel modules)";
    }
    remedy += route.kernel_new_enough == false ? " on Linux 5.12 or later" : "";
    return remedy +
           ". NCCL_DEBUG=INFO then prints 'GPU Direct RDMA Enabled for HCA' (or 'DMA-BUF is "
           "available on GPU device'); `peergate nccl-log` flags receives without GPUDirect RDMA "
           "(nccl_net_without_gdr).";
}

}  // namespace

std::optional<model::Finding> peer_memory_finding(const std::vector<GpuNicPath>& paths,
                                                  const model::HostFacts& host,
                                                  const std::map<int, bool>& dma_buf) {
    if (paths.empty() || !host.peer_memory_module || !host.peer_memory_module->empty()) {
        return std::nullopt;
    }
    const auto route = dma_buf_route(paths, host, dma_buf);
    if (route.carries()) {
        return std::nullopt;  // NCCL maps GPU memory for the NIC through DMA-BUF instead
    }
    const auto& gpus = route.gpus;
    return model::Finding{
        .code = model::FindingCode::gdr_no_peer_memory,
        .severity = model::Severity::info,
        .gpus = gpus,
        .message = fmt::format(
            "GPU{} {} share{} a PCIe switch with a network device, but no GPUDirect RDMA "
            "peer-memory module is loaded (neither nvidia_peermem nor nv_peer_mem), {}",
            gpus.size() == 1 ? "" : "s",
            fmt::join(gpus, ","),
            gpus.size() == 1 ? "s" : "",
            route.describe(host)),
        .remedy = peer_memory_remedy(route, host)};
}

std::vector<GpuNicPath> gpu_nic_paths(const DoctorInput& input) {
    std::vector<GpuNicPath> out;
    for (const auto& [gpu, ports] : input.ports) {
        for (const auto& nic : input.nics) {
            if (nic.physical_function) {
                continue;  // an SR-IOV virtual function: where its physical function is
            }
            auto path = acs_path(ports, nic.path.ports);
            if (path.state != AcsPath::State::not_shared) {
                out.push_back(
                    GpuNicPath{.gpu = gpu, .nic = nic.path.device, .path = std::move(path)});
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

std::string_view to_string(GdrMemory memory) {
    switch (memory) {
        case GdrMemory::peermem:
            return "peermem";
        case GdrMemory::dmabuf:
            return "dmabuf";
        case GdrMemory::none:
            return "none";
        case GdrMemory::unknown:
            break;
    }
    return "unknown";
}

GdrMemory gdr_memory(const model::HostFacts& host, const std::map<int, bool>& dma_buf) {
    if (host.peer_memory_module && !host.peer_memory_module->empty()) {
        return GdrMemory::peermem;
    }
    const bool every_yes = std::all_of(
        dma_buf.begin(), dma_buf.end(), [](const auto& answer) { return answer.second; });
    const auto kernel_new_enough = kernel_takes_dma_buf(host);
    if (!dma_buf.empty() && every_yes && kernel_new_enough != false) {
        return GdrMemory::dmabuf;
    }
    if (!host.peer_memory_module) {
        return GdrMemory::unknown;
    }
    const bool ruled_out = !every_yes || proprietary_module(host) || kernel_new_enough == false;
    return ruled_out ? GdrMemory::none : GdrMemory::unknown;
}

}  // namespace peergate::policy::doctor
