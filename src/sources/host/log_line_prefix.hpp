// SPDX-License-Identifier: Apache-2.0
// What tools put in front of a kernel message: dmesg's time ("[   12.345678]", "-T"'s date,
// "-d"/"-H"'s deltas, "--decode"'s "kern  :err   :", a caller id "[  T291]"), journalctl -k
// (short, short-iso, short-precise, short-monotonic, localised months), syslog and
// /var/log/kern.log ("Dec  1 12:00:00 host kernel: [ 12.3]"), talosctl dmesg, kubectl logs
// (--prefix, --timestamps), and a paste into a report ("> " quotes, indentation, CRLF).
// Pure; never allocates.
#pragma once

#include <string_view>

namespace peergate::sources::host {

// The message of one log line with every such prefix removed, in any combination; the line
// trimmed where it has none. Conservative: a bracket that is not a time ("[drm] ...",
// "[12] Timeout") and words that are not a timestamp and host stay.
std::string_view strip_log_line_prefix(std::string_view line);

}  // namespace peergate::sources::host
