// SPDX-License-Identifier: Apache-2.0
#include "report/doctor/links_text.hpp"

#include "policy/doctor/gpu_nic.hpp"
#include "policy/doctor/pcie_link.hpp"
#include "report/doctor/gpu_modes.hpp"
#include "util/strings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <vector>

namespace peergate::report::doctor {

namespace {

struct GpuLine {
    std::string pcie;
    std::string nvlink;
    std::string fabric;  // the NVSwitch fabric's registration of the GPU
    std::string mig;     // its MIG mode, where on (or changing)
    std::vector<std::string> errors;
    std::vector<std::string> nics;  // below the GPU's PCIe switch: GPUDirect RDMA's path
};

// "NIC 0000:07:00.0 (mlx5_0)": the RDMA devices are the names NCCL_IB_HCA takes.
std::string nic_name(const model::PciAddress& address, const std::vector<model::Nic>& nics) {
    const auto nic = std::find_if(nics.begin(), nics.end(), [&](const model::Nic& listed) {
        return listed.path.device == address;
    });
    const bool named = nic != nics.end() && !nic->rdma_devices.empty();
    return "NIC " + address.to_sysfs() +
           (named ? " (" + util::join(nic->rdma_devices, ",") + ")" : "");
}

// "NIC 0000:07:00.0 (mlx5_0) on its switch (ACS redirect)".
std::string nic_text(const policy::doctor::GpuNicPath& path, const std::vector<model::Nic>& nics) {
    const auto state = path.path.state;
    return fmt::format("{} on its switch{}",
                       nic_name(path.nic, nics),
                       state == policy::doctor::AcsPath::State::off
                           ? ""
                           : fmt::format(" (ACS {})", to_string(state)));
}

// "x8 of x16, 2.5 GT/s now" for the GPU's own PCIe link.
std::string pcie_text(const policy::doctor::PcieLinkState& link) {
    std::string text = link.width ? fmt::format("x{}", *link.width) : "x?";
    if (link.capable) {
        text += fmt::format(" of x{}", *link.capable);
    }
    if (!link.speed.empty()) {
        text += ", " + link.speed + " now";
    }
    return "PCIe " + text;
}

std::uint64_t nvlink_errors(const policy::doctor::GpuLinks& links) {
    std::uint64_t sum = 0;
    for (const auto& link : links.errors) {
        for (const auto& count : link.counts.value) {
            sum += count.value_or(0);
        }
    }
    return sum;
}

std::uint64_t aer_errors(const model::PciAer& aer) {
    std::uint64_t sum = 0;
    for (const auto* file : {&aer.correctable, &aer.nonfatal, &aer.fatal}) {
        sum += *file ? (*file)->sum() : 0;
    }
    return sum;
}

std::map<int, GpuLine> gpu_lines(const policy::doctor::DoctorInput& input,
                                 const model::Topology& topology) {
    std::map<int, GpuLine> lines;
    for (const auto& link : policy::doctor::pcie_links(input, topology)) {
        if (link.lower_is_gpu && (link.width || link.capable)) {
            lines[link.gpus.front()].pcie = pcie_text(link);
        }
    }
    for (const auto& links : input.links) {
        if (policy::doctor::is_examined(input, links.gpu)) {
            auto& line = lines[links.gpu];
            line.nvlink = fmt::format("NVLinks {} of {} up", links.up(), links.slots);
            if (const auto n = nvlink_errors(links); n > 0) {
                line.errors.push_back(fmt::format("{} NVLink errors", n));
            }
        }
    }
    for (const auto& [gpu, fabric] : input.fabric) {
        if (policy::doctor::is_examined(input, gpu)) {
            lines[gpu].fabric = fabric_text(fabric);
        }
    }
    for (const auto& [gpu, mig] : input.mig) {
        if (policy::doctor::is_examined(input, gpu) && !mig_text(mig).empty()) {
            lines[gpu].mig = mig_text(mig);
        }
    }
    for (const auto& path : policy::doctor::gpu_nic_paths(input)) {
        lines[path.gpu].nics.push_back(nic_text(path, input.nics));
    }
    for (const auto& gpu : topology.gpus) {
        const auto aer = gpu.pci ? input.aer.find(*gpu.pci) : input.aer.end();
        if (aer != input.aer.end() && input.ports.contains(gpu.index)) {
            const auto n = aer_errors(aer->second);
            lines[gpu.index].errors.push_back(n > 0 ? fmt::format("{} PCIe AER errors", n)
                                                    : std::string("no PCIe AER errors"));
        }
    }
    return lines;
}

}  // namespace

std::string links_to_text(const policy::doctor::DoctorInput& input) {
    const auto* topology = input.discovery.described();
    if (topology == nullptr) {
        return "";
    }
    const auto lines = gpu_lines(input, *topology);
    if (lines.empty()) {
        return "";
    }
    std::string out =
        "\nLinks (PCIe width trained, of what both ends can do; NVLinks; NVSwitch fabric; MIG; "
        "counters; NICs):\n";
    for (const auto& [gpu, line] : lines) {
        std::vector<std::string> parts;
        for (const auto* part : {&line.pcie, &line.nvlink, &line.fabric, &line.mig}) {
            if (!part->empty()) {
                parts.push_back(*part);
            }
        }
        parts.insert(parts.end(), line.errors.begin(), line.errors.end());
        parts.insert(parts.end(), line.nics.begin(), line.nics.end());
        out += fmt::format("  GPU{}  {}\n", gpu, fmt::join(parts, "; "));
    }
    for (const auto& link : policy::doctor::nic_pcie_links(input)) {
        out += fmt::format("  {}  {}\n", nic_name(link.lower, input.nics), pcie_text(link));
    }
    return out;
}

}  // namespace peergate::report::doctor
