// SPDX-License-Identifier: Apache-2.0
#include "model/pci_address.hpp"

#include "util/strings.hpp"

#include <fmt/format.h>

namespace peergate::model {

namespace {

util::Unexpected bad(std::string_view text, std::string_view why) {
    return util::unexpected(util::ErrorCode::invalid_input,
                            fmt::format("'{}' is not a PCI address ({})", text, why));
}

}  // namespace

util::Expected<PciAddress> PciAddress::parse(std::string_view text) {
    const std::string_view input = util::trim(text);
    const auto dot = input.rfind('.');
    if (dot == std::string_view::npos) {
        return bad(text, "expected [domain:]bus:device.function");
    }
    const auto fields = util::split(input.substr(0, dot), ':');
    if (fields.size() != 2 && fields.size() != 3) {
        return bad(text, "expected [domain:]bus:device.function");
    }
    const bool has_domain = fields.size() == 3;
    const std::string_view domain_text = has_domain ? fields[0] : std::string_view("0");
    const std::string_view bus_text = fields[has_domain ? 1 : 0];
    const std::string_view device_text = fields[has_domain ? 2 : 1];
    const auto domain = util::parse_hex<std::uint32_t>(domain_text);
    const auto bus = util::parse_hex<unsigned>(bus_text);
    const auto device = util::parse_hex<unsigned>(device_text);
    const auto function = util::parse_hex<unsigned>(input.substr(dot + 1));
    if (!domain || domain_text.size() > 8) {
        return bad(text, "bad domain");
    }
    if (!bus || *bus > 0xFF || bus_text.size() > 2) {
        return bad(text, "bad bus");
    }
    if (!device || *device > 0x1F || device_text.size() > 2) {
        return bad(text, "bad device");
    }
    if (!function || *function > 7) {
        return bad(text, "bad function");
    }
    return PciAddress{*domain,
                      static_cast<std::uint8_t>(*bus),
                      static_cast<std::uint8_t>(*device),
                      static_cast<std::uint8_t>(*function)};
}

std::string PciAddress::to_nvml() const {
    return fmt::format("{:08X}:{:02X}:{:02X}.{:X}", domain, bus, device, function);
}

std::string PciAddress::to_sysfs() const {
    return fmt::format("{:04x}:{:02x}:{:02x}.{:x}", domain, bus, device, function);
}

}  // namespace peergate::model
