// SPDX-License-Identifier: Apache-2.0
// PCIe AER reports in the kernel log. The kernel prints one report as a block of lines:
//     pcieport 0000:00:03.0: AER: Corrected error received: 0000:03:00.0
//     nvidia 0000:03:00.0: PCIe Bus Error: severity=Corrected, type=Physical Layer, (Receiver ID)
//     nvidia 0000:03:00.0:   device [10de:2330] error status/mask=00000001/0000e000
//     nvidia 0000:03:00.0:    [ 0] RxErr                  (First)
// (older kernels name the device "id=0018", print no "AER:" before "PCIe Bus Error", and
// spell bits "Receiver Error"). The reader joins a block into one event: severity, layer,
// the status bits' names, the reporting port and the device that had the error. Pure.
#pragma once

#include "model/kernel_event.hpp"
#include "model/pci_address.hpp"

#include <optional>
#include <string_view>
#include <vector>

namespace peergate::sources::host {

// A PCI address in any spelling the kernel log uses: "0000:41:00.0", "41:00.0",
// "PCI:0000:41:00" (function 0), "[0x41:0x00.0]", "device=41:00.0"; surrounding
// punctuation (",", ":", "(", ")", "[", "]") ignored.
std::optional<model::PciAddress> parse_log_pci_address(std::string_view token);

// A "received" line from a port opens a group; each "PCIe Bus Error" line after it is one
// report, of the device that printed it (the port itself, or the device below it), with
// the status and bit lines that device prints next. A "received" line no report follows is
// a report of the device it names.
class AerBlockReader {
public:
    // Reads one message (its prefix already stripped). True when it was a line of an AER
    // report; reports it completed are appended to `done`. Any other line ends the group.
    bool feed(std::string_view message, std::vector<model::KernelEvent>& done);

    // Appends the reports still open at the end of the log.
    void finish(std::vector<model::KernelEvent>& done);

private:
    struct Printer {
        std::optional<model::PciAddress> address;  // the device that printed the line
        std::string_view rest;                     // what it printed, after "driver addr: "
    };

    static std::optional<Printer> printer_of(std::string_view message);

    bool read_received(const Printer& printer,
                       std::string_view message,
                       std::vector<model::KernelEvent>& done);
    bool read_bus_error(const Printer& printer,
                        std::string_view message,
                        std::vector<model::KernelEvent>& done);
    bool read_detail(const Printer& printer);
    void close_report(std::vector<model::KernelEvent>& done);

    std::optional<model::KernelEvent> report_;    // the report whose lines are being read
    std::optional<model::KernelEvent> received_;  // a "received" line no report followed yet
    std::optional<model::PciAddress> port_;       // the port of the open group
};

}  // namespace peergate::sources::host
