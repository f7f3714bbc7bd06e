// SPDX-License-Identifier: Apache-2.0
#include "policy/doctor/pcie_link.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <string_view>
#include <utility>

namespace peergate::policy::doctor {

namespace {

using model::Finding;
using model::PciAddress;
using model::Severity;

const model::PciAttributes* attributes(const DoctorInput& input, const PciAddress& address) {
    const auto found = input.pci.find(address);
    return found == input.pci.end() ? nullptr : &found->second;
}

PcieLinkState link_between(const DoctorInput& input,
                           const PciAddress& lower,
                           const PciAddress& upper) {
    PcieLinkState link{.lower = lower, .upper = upper};
    const auto* a = attributes(input, lower);
    const auto* b = attributes(input, upper);
    if (a != nullptr) {
        link.width = a->current_link_width;
        link.speed = a->current_link_speed;
        link.max_speed = a->max_link_speed;
    }
    if (!link.width && b != nullptr) {
        link.width = b->current_link_width;  // both ends report the same trained width
    }
    if (a != nullptr && b != nullptr && a->max_link_width && b->max_link_width) {
        link.capable = std::min(*a->max_link_width, *b->max_link_width);
    }
    return link;
}

bool narrow(const PcieLinkState& link) {
    return link.width && link.capable && *link.width > 0 && *link.width < *link.capable;
}

std::string what_is_narrow(const PcieLinkState& link) {
    if (link.lower_is_gpu) {
        return fmt::format(
            "GPU {}'s PCIe link ({} to port {}) trained at x{}, where both ends can do x{}: its "
            "copies to and from host memory and its PCIe peer copies get {}/{} of the bandwidth",
            link.gpus.front(),
            link.lower.to_sysfs(),
            link.upper.to_sysfs(),
            *link.width,
            *link.capable,
            *link.width,
            *link.capable);
    }
    return fmt::format(
        "The PCIe link from switch port {} up to {}, which GPU{} {} share{}, trained at x{}, "
        "where both ends can do x{}: their copies to and from host memory share {}/{} of the "
        "bandwidth",
        link.lower.to_sysfs(),
        link.upper.to_sysfs(),
        link.gpus.size() == 1 ? "" : "s",
        fmt::join(link.gpus, ", "),
        link.gpus.size() == 1 ? "s" : "",
        *link.width,
        *link.capable,
        *link.width,
        *link.capable);
}

std::string narrow_remedy(std::string_view part, const PciAddress& lower) {
    return fmt::format(
        "Reseat {} and any riser or cable, check the slot's lane split (bifurcation) in the "
        "firmware setup, and compare LnkCap with LnkSta in 'sudo lspci -vv -s {}'. A link "
        "that trains narrow again is a failing slot, riser, cable or card; 'peergate bench' "
        "measures what it costs. (A speed below the maximum while idle is power saving; a "
        "narrow width is not.)",
        part,
        lower.to_sysfs());
}

Finding narrow_finding(const PcieLinkState& link) {
    return Finding{
        .code = model::FindingCode::pcie_link_narrow,
        .severity = Severity::warning,
        .gpus = link.gpus,
        .message = what_is_narrow(link) + ".",
        .remedy = narrow_remedy(link.lower_is_gpu ? "the card" : "the switch's board", link.lower)};
}

}  // namespace

std::vector<PcieLinkState> pcie_links(const DoctorInput& input, const model::Topology& topology) {
    std::map<std::pair<PciAddress, PciAddress>, PcieLinkState> links;
    for (const auto& [index, ports] : input.ports) {
        const auto position = topology.position_of(index);
        if (!position || !topology.gpus[*position].pci || ports.empty()) {
            continue;
        }
        PciAddress lower = *topology.gpus[*position].pci;
        for (std::size_t k = 0; k < ports.size(); k += 2) {
            const PciAddress& upper = ports[k].address;
            auto [it, added] = links.try_emplace({lower, upper}, link_between(input, lower, upper));
            it->second.lower_is_gpu = k == 0;
            it->second.gpus.push_back(index);
            if (k + 1 >= ports.size()) {
                break;
            }
            lower = ports[k + 1].address;
        }
    }
    std::vector<PcieLinkState> out;
    for (auto& [ends, link] : links) {
        std::sort(link.gpus.begin(), link.gpus.end());
        out.push_back(std::move(link));
    }
    return out;
}

std::vector<PcieLinkState> nic_pcie_links(const DoctorInput& input) {
    std::vector<PcieLinkState> out;
    for (const auto& nic : input.nics) {
        if (!nic.physical_function && !nic.path.ports.empty() &&
            attributes(input, nic.path.device) != nullptr) {
            out.push_back(link_between(input, nic.path.device, nic.path.ports.front().address));
        }
    }
    return out;
}

std::vector<Finding> nic_link_findings(const std::vector<PcieLinkState>& links,
                                       const std::vector<model::Nic>& nics) {
    std::vector<Finding> out;
    for (const auto& link : links) {
        if (!narrow(link)) {
            continue;
        }
        const auto nic = std::find_if(nics.begin(), nics.end(), [&](const model::Nic& listed) {
            return listed.path.device == link.lower;
        });
        const bool named = nic != nics.end() && !nic->rdma_devices.empty();
        out.push_back(Finding{
            .code = model::FindingCode::nic_link_narrow,
            .severity = Severity::warning,
            .gpus = {},
            .message = fmt::format(
                "NIC {}{}: its PCIe link (to port {}) trained at x{}, where both ends can do "
                "x{}: its network traffic, GPUDirect RDMA included, gets {}/{} of the PCIe "
                "bandwidth.",
                link.lower.to_sysfs(),
                named ? fmt::format(" ({})", fmt::join(nic->rdma_devices, ",")) : "",
                link.upper.to_sysfs(),
                *link.width,
                *link.capable,
                *link.width,
                *link.capable),
            .remedy = narrow_remedy("the NIC", link.lower)});
    }
    return out;
}

std::vector<Finding> pcie_link_findings(const std::vector<PcieLinkState>& links) {
    std::vector<Finding> out;
    for (const auto& link : links) {
        if (narrow(link)) {
            out.push_back(narrow_finding(link));
        }
    }
    std::stable_sort(
        out.begin(), out.end(), [](const Finding& a, const Finding& b) { return a.gpus < b.gpus; });
    return out;
}

}  // namespace peergate::policy::doctor
