// SPDX-License-Identifier: Apache-2.0
#include "sources/host/pcie_aer_log.hpp"

#include "util/strings.hpp"

#include <algorithm>
#include <string>
#include <utility>

namespace peergate::sources::host {

namespace {

using model::AerSeverity;

// A report names at most the 32 bits of its status register.
constexpr std::size_t kMaxErrorNames = 32;

std::string_view trim_punctuation(std::string_view token) {
    const auto punct = [](char c) {
        return c == ',' || c == ':' || c == '(' || c == ')' || c == '[' || c == ']' || c == ';';
    };
    while (!token.empty() && punct(token.front())) {
        token.remove_prefix(1);
    }
    while (!token.empty() && punct(token.back())) {
        token.remove_suffix(1);
    }
    return token;
}

// "0x41:0x00.0" -> "41:00.0".
std::string without_hex_marks(std::string_view token) {
    std::string out;
    for (std::size_t at = 0; at < token.size(); ++at) {
        if (token[at] == '0' && at + 1 < token.size() &&
            (token[at + 1] == 'x' || token[at + 1] == 'X') &&
            (at == 0 || token[at - 1] == ':' || token[at - 1] == '.')) {
            ++at;
            continue;
        }
        out += token[at];
    }
    return out;
}

// "Uncorrected (Non-Fatal)", "Multiple Corrected", ...: the severity the text names.
std::optional<AerSeverity> severity_in(std::string_view text) {
    if (text.find("Uncorrected (Fatal)") != std::string_view::npos ||
        text.find("Uncorrectable (Fatal)") != std::string_view::npos) {
        return AerSeverity::uncorrected_fatal;
    }
    if (text.find("Uncorrected (Non-Fatal)") != std::string_view::npos ||
        text.find("Uncorrectable (Non-Fatal)") != std::string_view::npos) {
        return AerSeverity::uncorrected_nonfatal;
    }
    // "Corrected" until Linux 6.x, "Correctable" since.
    if (text.find("Corrected") != std::string_view::npos ||
        text.find("Correctable") != std::string_view::npos) {
        return AerSeverity::corrected;
    }
    return std::nullopt;
}

// "id=0018": bus 0x00, device 3, function 0, in the reporting port's domain.
std::optional<model::PciAddress> from_requester_id(std::string_view id,
                                                   const std::optional<model::PciAddress>& port) {
    const auto value = util::parse_hex<unsigned>(id);
    if (!value || *value > 0xFFFF) {
        return std::nullopt;
    }
    return model::PciAddress{.domain = port ? port->domain : 0,
                             .bus = static_cast<std::uint8_t>(*value >> 8),
                             .device = static_cast<std::uint8_t>((*value >> 3) & 0x1F),
                             .function = static_cast<std::uint8_t>(*value & 7)};
}

// "AER: " before a message, as kernels since 4.19 print it, or nothing.
std::string_view after_aer_tag(std::string_view text) {
    text = util::trim(text);
    return text.starts_with("AER:") ? util::trim(text.substr(4)) : text;
}

// "[14] CmpltTO                (First)" -> "CmpltTO"; nullopt when not a bit line.
std::optional<std::string_view> error_bit_name(std::string_view text) {
    text = util::trim(text);
    const auto close = text.find(']');
    if (!text.starts_with('[') || close == std::string_view::npos ||
        !util::parse_int<int>(util::trim(text.substr(1, close - 1)))) {
        return std::nullopt;
    }
    std::string_view name = util::trim(text.substr(close + 1));
    if (name.ends_with("(First)")) {
        name = util::trim(name.substr(0, name.size() - 7));
    }
    return name.empty() ? std::nullopt : std::optional(name);
}

model::KernelEvent aer_event(std::string_view message,
                             std::optional<model::PciAddress> device,
                             std::optional<model::PciAddress> port) {
    return model::KernelEvent{.kind = model::KernelEventKind::pcie_aer,
                              .device = device,
                              .line = std::string(util::trim(message).substr(0, 300)),
                              .aer = model::AerReport{.port = port}};
}

}  // namespace

std::optional<model::PciAddress> parse_log_pci_address(std::string_view token) {
    token = trim_punctuation(util::trim(token));
    for (std::string_view tag : {"device=", "PCI:", "pci "}) {
        if (token.starts_with(tag)) {
            token = trim_punctuation(token.substr(tag.size()));
        }
    }
    const std::string text = without_hex_marks(token);
    if (auto full = model::PciAddress::parse(text)) {
        return *full;
    }
    // "PCI:0000:41:00", as Xid lines print it: function 0.
    if (std::count(text.begin(), text.end(), ':') == 2 && text.find('.') == std::string::npos) {
        if (auto no_function = model::PciAddress::parse(text + ".0")) {
            return *no_function;
        }
    }
    return std::nullopt;
}

std::optional<AerBlockReader::Printer> AerBlockReader::printer_of(std::string_view message) {
    // "<driver> <address>: <what it printed>"
    const auto space = message.find(' ');
    if (space == std::string_view::npos) {
        return std::nullopt;
    }
    const std::string_view after = message.substr(space + 1);
    const auto colon_space = after.find(": ");
    const auto end = colon_space == std::string_view::npos ? after.size() : colon_space;
    auto address = parse_log_pci_address(after.substr(0, end));
    if (!address) {
        return std::nullopt;
    }
    return Printer{address, end < after.size() ? after.substr(end + 1) : std::string_view{}};
}

bool AerBlockReader::feed(std::string_view message, std::vector<model::KernelEvent>& done) {
    const auto printer = printer_of(util::trim(message));
    if (printer && (read_received(*printer, message, done) ||
                    read_bus_error(*printer, message, done) || read_detail(*printer))) {
        return true;
    }
    finish(done);  // a report never spans another message
    return false;
}

void AerBlockReader::close_report(std::vector<model::KernelEvent>& done) {
    if (report_) {
        done.push_back(std::move(*report_));
        report_.reset();
    }
}

void AerBlockReader::finish(std::vector<model::KernelEvent>& done) {
    close_report(done);
    if (received_) {
        done.push_back(std::move(*received_));
        received_.reset();
    }
    port_.reset();
}

// "AER: Corrected error received: 0000:03:00.0", "AER: Correctable error message received
// from 0000:00:00.0", "AER: Multiple Corrected error received: id=00e8": a group begins.
bool AerBlockReader::read_received(const Printer& printer,
                                   std::string_view message,
                                   std::vector<model::KernelEvent>& done) {
    const std::string_view text = after_aer_tag(printer.rest);
    std::size_t received = text.find("received: ");
    std::size_t skip = 10;
    if (received == std::string_view::npos) {
        received = text.find("received from ");
        skip = 14;
    }
    const auto severity =
        received == std::string_view::npos ? std::nullopt : severity_in(text.substr(0, received));
    if (!severity || !util::trim(printer.rest).starts_with("AER:")) {
        return false;
    }
    finish(done);
    port_ = printer.address;
    const std::string_view named = util::trim(text.substr(received + skip));
    const auto words = util::split_whitespace(named);
    std::optional<model::PciAddress> device;
    if (named.starts_with("id=")) {
        device = from_requester_id(trim_punctuation(named.substr(3, 4)), port_);
    } else if (!words.empty()) {
        device = parse_log_pci_address(words.front());
    }
    received_ = aer_event(message, device, port_);
    received_->aer->severity = *severity;
    return true;
}

// "PCIe Bus Error: severity=Corrected, type=Physical Layer, (Receiver ID)": one report, of
// the device that printed it.
bool AerBlockReader::read_bus_error(const Printer& printer,
                                    std::string_view message,
                                    std::vector<model::KernelEvent>& done) {
    const std::string_view text = after_aer_tag(printer.rest);
    if (!text.starts_with("PCIe Bus Error: severity=")) {
        return false;
    }
    close_report(done);
    received_.reset();  // this report is what the received line announced
    const std::string_view fields = text.substr(25);
    report_ = aer_event(message, printer.address, port_);
    if (auto severity = severity_in(fields.substr(0, fields.find(',')))) {
        report_->aer->severity = *severity;
    }
    if (const auto type = fields.find("type="); type != std::string_view::npos) {
        const std::string_view layer = fields.substr(type + 5);
        report_->aer->layer = std::string(util::trim(layer.substr(0, layer.find(','))));
    }
    return true;
}

// The status, bit and TLP header lines that follow, from the same device.
bool AerBlockReader::read_detail(const Printer& printer) {
    if (!report_ || printer.address != report_->device) {
        return false;
    }
    const std::string_view text = after_aer_tag(printer.rest);
    if (auto name = error_bit_name(text)) {
        auto& errors = report_->aer->errors;
        if (errors.size() < kMaxErrorNames) {
            errors.emplace_back(*name);
        }
        return true;
    }
    return text.starts_with("device [") || text.starts_with("TLP Header:") ||
           text.starts_with("Error of this Agent") || text.starts_with("aer_");
}

}  // namespace peergate::sources::host
