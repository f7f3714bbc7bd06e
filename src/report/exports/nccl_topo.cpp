// SPDX-License-Identifier: Apache-2.0
// The tree follows ncclTopoGetXmlFromSys (NCCL src/graph/xml.cc): from a device it climbs its
// sysfs path two directories at a time, so a GPU or a NIC hangs from the upstream port of the
// switch above it (the downstream port between them is skipped) and the climb ends at the first
// directory that is not a 12-character bus id, the root bus, under the <cpu> whose numaid is
// the numa_node of the last device reached. Bus ids must be sysfs's exact text: NCCL finds
// its own devices in the file by comparing strings.
#include "report/exports/nccl_topo.hpp"

#include "util/expected.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <map>
#include <optional>
#include <string_view>

namespace peergate::report::exports {

namespace {

// ' key="value"', or nothing for an empty value or one that NCCL's reader would misread: it
// knows no escapes and takes at most 255 characters.
std::string attribute(std::string_view key, std::string_view value) {
    const bool safe = !value.empty() && value.size() < 256 &&
                      value.find_first_of("\"<>&\r\n") == std::string_view::npos;
    return safe ? fmt::format(" {}=\"{}\"", key, value) : std::string();
}

const model::PciAttributes* attributes_of(const ExportFacts& facts, const model::PciAddress& at) {
    const auto found = facts.pci.find(at);
    return found == facts.pci.end() ? nullptr : &found->second;
}

// A max_link_speed's rate in GT/s as NCCL reads it ("%f GT/s"); none reads as infinite.
double transfer_rate(const std::string& speed) {
    char* end = nullptr;
    const double rate = std::strtod(speed.c_str(), &end);
    return end == speed.c_str() ? std::numeric_limits<double>::infinity() : rate;
}

// link_speed and link_width as NCCL derives them from sysfs: the slower of the device's and
// its parent port's maximum, a speed that is missing counting as infinitely fast. Under the
// root bus there is no parent port and the device's own link is the whole link: NCCL's own
// detection writes width 0 there (it finds no ../max_link_width), which it reads as x16
// whatever the lanes; the device's width says what they are. What neither end gives is left
// out (docs/export.md, nccl-topo).
std::string link_attributes(const model::PciAttributes& self, const model::PciAttributes* parent) {
    const model::PciAttributes none;
    const model::PciAttributes& port = parent != nullptr ? *parent : none;
    const std::string& speed =
        transfer_rate(port.max_link_speed) < transfer_rate(self.max_link_speed)
            ? port.max_link_speed
            : self.max_link_speed;
    std::optional<int> width = self.max_link_width;
    if (port.max_link_width && (!width || *port.max_link_width < *width)) {
        width = port.max_link_width;
    }
    return attribute("link_speed", speed) +
           (width ? attribute("link_width", std::to_string(*width)) : std::string());
}

// NCCL's word for the architecture (topo.cc matches "x86_64", "arm64" and "ppc64" as
// prefixes), from the kernel's ("aarch64", "ppc64le"); another is left out.
std::string nccl_arch(std::string_view arch) {
    if (arch == "x86_64") {
        return "x86_64";
    }
    if (arch == "aarch64" || arch == "arm64") {
        return "arm64";
    }
    return arch.starts_with("ppc64") ? "ppc64" : "";
}

// cpuid's family as NCCL's own detection computes it (xml.cc): the base family plus the
// extended family shifted left by 4, where /proc/cpuinfo adds the two: AMD's family 25 (0xF
// + 0xA) is NCCL's 0xAF, which every NCCL release reads as Zen 3/4. The extended family only
// counts from base family 15; NCCL's model is cpuinfo's.
int nccl_family(int family) {
    return family < 15 ? family : 15 + ((family - 15) << 4);
}

// What ncclTopoAddCpu reads: arch always, and on x86 the vendor, family and model.
std::string cpu_attributes(const model::CpuIdentity& cpu) {
    const std::string arch = nccl_arch(cpu.arch);
    std::string out = attribute("arch", arch);
    if (arch != "x86_64") {
        return out;
    }
    out += attribute("vendor", cpu.vendor);
    if (cpu.family) {
        out += attribute("familyid", std::to_string(nccl_family(*cpu.family)));
    }
    if (cpu.model) {
        out += attribute("modelid", std::to_string(*cpu.model));
    }
    return out;
}

std::string pci_attributes(const ExportFacts& facts,
                           const model::PciAddress& address,
                           const model::PciPort* parent) {
    const auto renamed = facts.bus_renames.find(address);
    const std::string busid = attribute(
        "busid", (renamed == facts.bus_renames.end() ? address : renamed->second).to_sysfs());
    const auto* self = attributes_of(facts, address);
    if (self == nullptr) {
        return busid;
    }
    const auto* above = parent == nullptr ? nullptr : attributes_of(facts, parent->address);
    return busid + attribute("class", self->pci_class) + attribute("vendor", self->vendor) +
           attribute("device", self->device) +
           attribute("subsystem_vendor", self->subsystem_vendor) +
           attribute("subsystem_device", self->subsystem_device) + link_attributes(*self, above);
}

// A device the file ends a branch with: a GPU or a NIC, and the ports above it.
struct Leaf {
    std::string name;  // "GPU 2", "NIC 0000:1a:00.0"
    model::PciAddress address;
    const std::vector<model::PciPort>* ports = nullptr;
};

// Where a leaf goes in the file: its NUMA node and the ports NCCL keeps above it, top first.
struct Place {
    int numa = -1;
    std::vector<std::size_t> ancestors;  // positions in the leaf's port list, top first
};

util::Expected<Place> place_of(const ExportFacts& facts, const Leaf& leaf) {
    const auto& ports = *leaf.ports;
    Place place;
    std::size_t bus_ids = 0;  // the ports below the first directory that is not a bus id
    while (bus_ids < ports.size() && ports[bus_ids].address.to_sysfs().size() == 12) {
        ++bus_ids;
    }
    for (std::size_t k = 1; k < bus_ids; k += 2) {
        place.ancestors.insert(place.ancestors.begin(), k);
    }
    const model::PciAddress top =
        place.ancestors.empty() ? leaf.address : ports[place.ancestors.front()].address;
    const auto* top_attributes = attributes_of(facts, top);
    if (top_attributes == nullptr || !top_attributes->numa_node) {
        return util::unexpected(
            util::ErrorCode::unavailable,
            fmt::format("{}: sysfs gave no numa_node for {}", leaf.name, top.to_sysfs()));
    }
    place.numa = *top_attributes->numa_node;
    return place;
}

// The examined GPUs whose ports were read, then the NICs; the others, each with why.
std::vector<Leaf> leaves(const ExportFacts& facts, std::vector<std::string>* left_out) {
    std::vector<Leaf> out;
    for (const auto& gpu : examined_gpus(facts)) {
        const auto ports = facts.doctor.ports.find(gpu.index);
        if (gpu.pci && ports != facts.doctor.ports.end()) {
            out.push_back({fmt::format("GPU {}", gpu.index), *gpu.pci, &ports->second});
        } else if (left_out != nullptr) {
            left_out->push_back(
                fmt::format("GPU {}: its PCIe path in sysfs was not read", gpu.index));
        }
    }
    for (const auto& nic : facts.nics) {
        if (nic.physical_function) {
            continue;  // NCCL merges a virtual function into its card (NCCL_IB_MERGE_VFS=1)
        }
        out.push_back({"NIC " + nic.path.device.to_sysfs(), nic.path.device, &nic.path.ports});
    }
    return out;
}

// One <pci> element and what hangs from it.
struct PciNode {
    model::PciAddress address;
    std::string attributes;
    std::vector<PciNode> children;
};

PciNode& child(std::vector<PciNode>& siblings,
               const model::PciAddress& address,
               std::string attributes) {
    const auto found = std::find_if(
        siblings.begin(), siblings.end(), [&](const PciNode& n) { return n.address == address; });
    if (found != siblings.end()) {
        return *found;
    }
    return siblings.emplace_back(PciNode{.address = address, .attributes = std::move(attributes)});
}

// Puts the leaf under its NUMA node's <cpu>, below the ports NCCL keeps above it.
void add_leaf(const ExportFacts& facts,
              const Leaf& leaf,
              const Place& place,
              std::map<int, std::vector<PciNode>>& cpus) {
    const auto& ports = *leaf.ports;
    const auto parent_of = [&](std::size_t k) { return k < ports.size() ? &ports[k] : nullptr; };
    std::vector<PciNode>* siblings = &cpus[place.numa];
    for (std::size_t k : place.ancestors) {
        PciNode& node = child(
            *siblings, ports[k].address, pci_attributes(facts, ports[k].address, parent_of(k + 1)));
        siblings = &node.children;
    }
    child(*siblings, leaf.address, pci_attributes(facts, leaf.address, parent_of(0)));
}

// One line, indented two spaces per level as NCCL's own dump is.
void put_line(std::string& out, std::string_view line, int depth) {
    out.append(static_cast<std::size_t>(2 * depth), ' ').append(line).push_back('\n');
}

void put_node(std::string& out, std::vector<PciNode>& nodes, int depth) {
    std::sort(nodes.begin(), nodes.end(), [](const PciNode& a, const PciNode& b) {
        return a.address < b.address;  // NCCL keeps siblings in bus id order
    });
    for (auto& node : nodes) {
        if (node.children.empty()) {  // a GPU or a NIC: NCCL adds its <gpu> or <nic> at init
            put_line(out, fmt::format("<pci{}/>", node.attributes), depth);
            continue;
        }
        put_line(out, fmt::format("<pci{}>", node.attributes), depth);
        put_node(out, node.children, depth + 1);
        put_line(out, "</pci>", depth);
    }
}

}  // namespace

std::string export_nccl_topo(const ExportFacts& facts) {
    std::map<int, std::vector<PciNode>> cpus;
    for (const auto& leaf : leaves(facts, nullptr)) {
        if (const auto place = place_of(facts, leaf)) {
            add_leaf(facts, leaf, *place, cpus);
        }
    }
    std::string out = fmt::format(
        "<system version=\"1\"{}>\n",
        attribute("name", fmt::format("peergate {} {}", facts.run.version, facts.run.node_name)));
    for (auto& [numa, nodes] : cpus) {
        const auto mask = facts.numa_cpumaps.find(numa);
        put_line(out,
                 fmt::format("<cpu{}{}{}>",
                             attribute("numaid", std::to_string(numa)),
                             mask == facts.numa_cpumaps.end() ? std::string()
                                                              : attribute("affinity", mask->second),
                             cpu_attributes(facts.cpu)),
                 1);
        put_node(out, nodes, 2);
        put_line(out, "</cpu>", 1);
    }
    return out + "</system>\n";
}

std::vector<std::string> nccl_topo_left_out(const ExportFacts& facts) {
    std::vector<std::string> out;
    for (const auto& leaf : leaves(facts, &out)) {
        if (auto place = place_of(facts, leaf); !place) {
            out.push_back(place.error().message);
        }
    }
    return out;
}

std::vector<model::PciAddress> nccl_topo_unused_renames(const ExportFacts& facts) {
    std::vector<model::PciAddress> in_file;
    for (const auto& leaf : leaves(facts, nullptr)) {
        if (place_of(facts, leaf)) {
            in_file.push_back(leaf.address);
            for (const auto& port : *leaf.ports) {
                in_file.push_back(port.address);
            }
        }
    }
    std::vector<model::PciAddress> unused;
    for (const auto& [host, vm] : facts.bus_renames) {
        if (std::find(in_file.begin(), in_file.end(), host) == in_file.end()) {
            unused.push_back(host);
        }
    }
    return unused;
}

}  // namespace peergate::report::exports
