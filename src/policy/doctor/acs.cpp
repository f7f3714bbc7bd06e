// SPDX-License-Identifier: Apache-2.0
#include "policy/doctor/acs.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace peergate::policy::doctor {

namespace {

bool holds(const std::vector<model::PciPort>& ports, const model::PciAddress& address) {
    return std::any_of(
        ports.begin(), ports.end(), [&](const model::PciPort& p) { return p.address == address; });
}

// The ports of `chain` below the first port it shares with `other`; nullopt when it shares
// none. Nearest first, so they are the ports between the GPU and the shared one.
std::optional<std::size_t> below_shared(const std::vector<model::PciPort>& chain,
                                        const std::vector<model::PciPort>& other) {
    for (std::size_t k = 0; k < chain.size(); ++k) {
        if (holds(other, chain[k].address)) {
            return k;
        }
    }
    return std::nullopt;
}

void consider(const std::vector<model::PciPort>& chain, std::size_t count, AcsPath& path) {
    for (std::size_t k = 0; k < count && path.state != AcsPath::State::redirect; ++k) {
        const auto& port = chain[k];
        if (port.acs && port.acs->redirects()) {
            path = AcsPath{.state = AcsPath::State::redirect, .shared = path.shared, .port = port};
        } else if (!port.unread.empty() && path.state == AcsPath::State::off) {
            path = AcsPath{.state = AcsPath::State::unknown, .shared = path.shared, .port = port};
        }
    }
}

model::Finding redirect_finding(int a, int b, const AcsPath& path) {
    const std::string port = path.port->address.to_sysfs();
    return model::Finding{
        .code = model::FindingCode::acs_redirect,
        .severity = model::Severity::warning,
        .gpus = {a, b},
        .message = fmt::format(
            "GPU {} and GPU {} sit below the same PCIe port ({}), but ACS redirect is on at {} "
            "({}): their peer traffic goes up to the root complex (and its IOMMU) instead of "
            "across the switch",
            a,
            b,
            path.shared->to_sysfs(),
            port,
            path.port->acs->describe()),
        .remedy = fmt::format(
            "On bare metal, let the switch carry peer traffic: turn ACS redirect off on its "
            "downstream ports (a BIOS setting on many servers; the kernel parameter "
            "pci=disable_acs_redir={}; or, until reboot, 'setpci -s {} ECAP_ACS+0x6.w=0000' as "
            "root, as NCCL's troubleshooting guide shows). Under a hypervisor ACS keeps guests "
            "apart: leave it on there.",
            port,
            port)};
}

}  // namespace

std::string_view to_string(AcsPath::State state) {
    switch (state) {
        case AcsPath::State::off:
            return "off";
        case AcsPath::State::redirect:
            return "redirect";
        case AcsPath::State::unknown:
            return "unknown";
        case AcsPath::State::not_shared:
            break;
    }
    return "not_shared";
}

AcsPath acs_path(const std::vector<model::PciPort>& a, const std::vector<model::PciPort>& b) {
    const auto in_a = below_shared(a, b);
    const auto in_b = below_shared(b, a);
    if (!in_a || !in_b) {
        return AcsPath{};
    }
    AcsPath path{.state = AcsPath::State::off, .shared = a[*in_a].address};
    consider(a, *in_a, path);
    consider(b, *in_b, path);
    return path;
}

std::optional<model::Finding> acs_redirect_finding(const DoctorInput& input) {
    std::optional<model::Finding> finding;
    std::size_t more = 0;
    for (const auto& pair : input.pairs) {
        const auto a = input.ports.find(pair.src);
        const auto b = input.ports.find(pair.dst);
        if (pair.src > pair.dst || a == input.ports.end() || b == input.ports.end()) {
            continue;
        }
        const auto path = acs_path(a->second, b->second);
        if (path.state != AcsPath::State::redirect) {
            continue;
        }
        if (!finding) {
            finding = redirect_finding(pair.src, pair.dst, path);
        } else {
            ++more;
            finding->gpus.insert(finding->gpus.end(), {pair.src, pair.dst});
        }
    }
    if (finding) {
        std::sort(finding->gpus.begin(), finding->gpus.end());
        finding->gpus.erase(std::unique(finding->gpus.begin(), finding->gpus.end()),
                            finding->gpus.end());
        if (more > 0) {
            finding->message +=
                fmt::format("; {} more pair{} likewise", more, more == 1 ? "" : "s");
        }
    }
    return finding;
}

}  // namespace peergate::policy::doctor
