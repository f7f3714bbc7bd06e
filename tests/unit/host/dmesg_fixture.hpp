// SPDX-License-Identifier: Apache-2.0
// The kernel-log tests' shared helpers: a fixture of tests/fixtures/dmesg, read whole, and
// a PCI address from its text.
#pragma once

#include "model/pci_address.hpp"
#include "util/atomic_file.hpp"

#include <gtest/gtest.h>

#include <string>

namespace peergate::test {

inline std::string dmesg_fixture(const std::string& name) {
    auto text = util::read_file(std::string(PEERGATE_TEST_FIXTURES) + "/dmesg/" + name);
    EXPECT_TRUE(text.has_value()) << name;
    return text.value_or("");
}

inline model::PciAddress pci(const char* text) {
    return model::PciAddress::parse(text).value();
}

}  // namespace peergate::test
