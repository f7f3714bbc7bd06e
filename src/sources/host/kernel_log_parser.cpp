// SPDX-License-Identifier: Apache-2.0
#include "sources/host/kernel_log_parser.hpp"

#include "sources/host/log_line_prefix.hpp"
#include "sources/host/pcie_aer_log.hpp"
#include "sources/host/sxid_log.hpp"
#include "util/strings.hpp"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

namespace peergate::sources::host {

namespace {

using model::KernelEvent;
using model::KernelEventKind;

// Text between `open` (after it) and the next `close`.
std::optional<std::string_view> between(std::string_view line, std::string_view open, char close) {
    const auto start = line.find(open);
    if (start == std::string_view::npos) {
        return std::nullopt;
    }
    const auto from = start + open.size();
    const auto end = line.find(close, from);
    if (end == std::string_view::npos) {
        return std::nullopt;
    }
    return line.substr(from, end - from);
}

// Xid lines name "PCI:0000:10:1c" (domain:bus:device, no function): function 0.
std::optional<model::PciAddress> xid_device(std::string_view text) {
    auto pci = model::PciAddress::parse(text);
    if (!pci) {
        pci = model::PciAddress::parse(std::string(text) + ".0");
    }
    return pci ? std::optional(*pci) : std::nullopt;
}

// "NVRM: Xid (PCI:...)", never the NVSwitch's "SXid (PCI:...)" (read_sxid_line).
std::optional<KernelEvent> read_xid(std::string_view line) {
    const auto at = line.find("Xid (PCI:");
    if (at == std::string_view::npos || (at > 0 && line[at - 1] == 'S')) {
        return std::nullopt;
    }
    const auto device = between(line.substr(at), "Xid (PCI:", ')');
    if (!device) {
        return std::nullopt;
    }
    const auto after = line.substr(line.find("):", at) + 2);
    const auto comma = after.find(',');
    const auto number = util::parse_int<int>(util::trim(after.substr(0, comma)));
    if (!number) {
        return std::nullopt;
    }
    return KernelEvent{.kind = KernelEventKind::xid, .device = xid_device(*device), .xid = *number};
}

// "NVRM: GPU at 0000:01:00.0 has fallen off the bus." and, after an Xid 79,
// "NVRM: GPU 0000:91:00.0: GPU has fallen off the bus." (one line each). The newer
// multi-line form is joined by the caller (see MultiLineFallenOff).
std::optional<KernelEvent> read_fallen_off(std::string_view line) {
    auto start = line.find("NVRM: GPU ");
    if (start == std::string_view::npos ||
        line.find("fallen off the bus") == std::string_view::npos) {
        return std::nullopt;
    }
    start += 10;
    if (line.substr(start).starts_with("at ")) {
        start += 3;
    }
    const auto fields = util::split_whitespace(line.substr(start));
    auto pci = fields.empty() ? std::nullopt : parse_log_pci_address(fields[0]);
    if (!pci) {
        return std::nullopt;
    }
    return KernelEvent{.kind = KernelEventKind::fallen_off_bus, .device = *pci};
}

// Newer drivers print "NVRM: The NVIDIA GPU 0000:b3:00.0" alone on a line, then
// "(PCI ID: ...) installed in this system has" and "fallen off the bus ..." on the next two.
// The same opening starts other messages ("... is not supported"), so wait for the words.
class MultiLineFallenOff {
public:
    std::optional<KernelEvent> feed(std::string_view line) {
        if (const auto start = line.find("NVRM: The NVIDIA GPU ");
            start != std::string_view::npos) {
            const auto fields = util::split_whitespace(line.substr(start + 21));
            auto pci = fields.size() == 1 ? model::PciAddress::parse(fields[0])
                                          : model::PciAddress::parse("");
            device_ = pci ? std::optional(*pci) : std::nullopt;
            first_line_ = std::string(line);
            lines_left_ = 3;
            return std::nullopt;
        }
        if (!device_ || lines_left_-- <= 0) {
            device_.reset();
            return std::nullopt;
        }
        if (line.find("fallen off the bus") == std::string_view::npos) {
            return std::nullopt;
        }
        KernelEvent event{
            .kind = KernelEventKind::fallen_off_bus, .device = device_, .line = first_line_};
        device_.reset();
        return event;
    }

private:
    std::optional<model::PciAddress> device_;
    std::string first_line_;
    int lines_left_ = 0;
};

std::optional<KernelEvent> read_dmar(std::string_view line) {
    if (line.find("DMAR: [DMA") == std::string_view::npos) {
        return std::nullopt;
    }
    // "[0000:3b:00.0]", "[03:00.0]", and "[0x00:0x02.0]" as some kernels print it.
    const auto device = between(line, "Request device [", ']');
    return KernelEvent{.kind = KernelEventKind::dmar_fault,
                       .device = device ? parse_log_pci_address(*device) : std::nullopt};
}

std::optional<KernelEvent> read_amd_vi(std::string_view line) {
    if (line.find("IO_PAGE_FAULT") == std::string_view::npos) {
        return std::nullopt;
    }
    // New form: "nvidia 0000:81:00.0: AMD-Vi: Event logged [IO_PAGE_FAULT domain=...";
    // old form: "AMD-Vi: Event logged [IO_PAGE_FAULT device=05:00.0 domain=...".
    std::optional<model::PciAddress> pci;
    if (const auto old_form = between(line, "device=", ' ')) {
        if (auto parsed = model::PciAddress::parse(*old_form)) {
            pci = *parsed;
        }
    } else if (const auto amd = line.find(": AMD-Vi:"); amd != std::string_view::npos) {
        const auto fields = util::split_whitespace(line.substr(0, amd));
        if (!fields.empty()) {
            if (auto parsed = model::PciAddress::parse(fields.back())) {
                pci = *parsed;
            }
        }
    }
    return KernelEvent{.kind = KernelEventKind::amd_vi_fault, .device = pci};
}

std::optional<KernelEvent> read_event(std::string_view line) {
    for (auto reader : {read_sxid_line, read_xid, read_fallen_off, read_dmar, read_amd_vi}) {
        if (auto event = reader(line)) {
            event->line = std::string(line.substr(0, 300));
            return event;
        }
    }
    return std::nullopt;
}

// "dmar_fault: 2474 callbacks suppressed" / "amd_iommu_report_page_fault: 6 callbacks suppressed".
std::optional<std::pair<KernelEventKind, int>> read_suppressed(std::string_view line) {
    const auto at = line.find(" callbacks suppressed");
    if (at == std::string_view::npos) {
        return std::nullopt;
    }
    const auto colon = line.rfind(':', at);
    if (colon == std::string_view::npos) {
        return std::nullopt;
    }
    const auto count = util::parse_int<int>(util::trim(line.substr(colon + 1, at - colon - 1)));
    const bool dmar = line.starts_with("dmar");
    const bool amd = line.starts_with("amd_iommu");
    if (!count || (!dmar && !amd)) {
        return std::nullopt;
    }
    return std::pair{dmar ? KernelEventKind::dmar_fault : KernelEventKind::amd_vi_fault, *count};
}

// One group per kind, device and Xid (or SXid), and for AER reports per severity: a storm
// of corrected errors and one fatal error on the same link are two findings.
bool same_group(const KernelEvent& a, const KernelEvent& b) {
    const auto severity = [](const KernelEvent& e) {
        return e.aer ? std::optional(e.aer->severity) : std::nullopt;
    };
    const auto sxid = [](const KernelEvent& e) {
        return e.sxid ? std::optional(e.sxid->number) : std::nullopt;
    };
    return a.kind == b.kind && a.device == b.device && a.xid == b.xid && sxid(a) == sxid(b) &&
           severity(a) == severity(b);
}

// A group's AER report lists every error bit its reports named, each once.
void merge_error_names(model::AerReport& into, const model::AerReport& from) {
    for (const auto& name : from.errors) {
        if (into.errors.size() < 32 &&
            std::find(into.errors.begin(), into.errors.end(), name) == into.errors.end()) {
            into.errors.push_back(name);
        }
    }
}

void add_event(std::vector<KernelEvent>& events, KernelEvent event) {
    for (auto& known : events) {
        if (same_group(known, event)) {
            known.count += event.count;
            known.suppressed += event.suppressed;
            if (known.aer && event.aer) {
                merge_error_names(*known.aer, *event.aer);
            }
            if (known.sxid && event.sxid) {
                if (event.count == 1 && known.count == 1) {  // the first error line, after Data
                    known.line = event.line;
                }
                merge_sxid(*known.sxid, *event.sxid);
            }
            return;
        }
    }
    events.push_back(std::move(event));
}

// Suppression notes count against the latest event of their kind; one printed before any
// such event (the log excerpt starts mid-storm) is kept for the next one.
struct Suppressed {
    int dmar = 0;
    int amd_vi = 0;

    int& of(KernelEventKind kind) { return kind == KernelEventKind::dmar_fault ? dmar : amd_vi; }
};

void add_suppressed(std::vector<KernelEvent>& events,
                    KernelEventKind kind,
                    int count,
                    Suppressed& pending) {
    for (auto it = events.rbegin(); it != events.rend(); ++it) {
        if (it->kind == kind) {
            it->suppressed += count;
            return;
        }
    }
    pending.of(kind) += count;
}

void claim_pending(KernelEvent& event, Suppressed& pending) {
    if (event.kind == KernelEventKind::dmar_fault || event.kind == KernelEventKind::amd_vi_fault) {
        event.suppressed += std::exchange(pending.of(event.kind), 0);
    }
}

}  // namespace

std::vector<KernelEvent> parse_kernel_log(std::string_view text) {
    std::vector<KernelEvent> events;
    MultiLineFallenOff multi_line;
    AerBlockReader aer;
    Suppressed pending;
    for (std::string_view raw : util::split_lines(text)) {
        const std::string_view line = strip_log_line_prefix(raw);
        std::vector<KernelEvent> reports;
        const bool aer_line = aer.feed(line, reports);
        for (auto& report : reports) {
            add_event(events, std::move(report));
        }
        if (aer_line) {
            continue;
        }
        auto event = read_event(line);
        if (!event) {
            event = multi_line.feed(line);
        }
        if (event) {
            claim_pending(*event, pending);
            add_event(events, std::move(*event));
        } else if (auto suppressed = read_suppressed(line)) {
            add_suppressed(events, suppressed->first, suppressed->second, pending);
        }
    }
    std::vector<KernelEvent> reports;
    aer.finish(reports);
    for (auto& report : reports) {
        add_event(events, std::move(report));
    }
    for (auto& event : events) {
        event.count = std::max(event.count, 1);  // an SXid seen only by its Data lines
    }
    return events;
}

}  // namespace peergate::sources::host
