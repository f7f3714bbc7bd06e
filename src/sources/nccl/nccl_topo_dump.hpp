// SPDX-License-Identifier: Apache-2.0
// Reads NCCL's topology dump, printed at init by every rank:
//     === System : maxBw 48.0 totalBw 370.8 ===
//     CPU/0-0 (1/1/2)
//     + PCI[48.0] - PCI/0-17000 (1000c03015d91d25)
//                   + PCI[48.0] - GPU/0-19000 (0)
//                                 + NVL[370.8] - NVS/0
// Indentation is the tree: a "+ LINK[bw] - NODE" line hangs off the nearest line above it
// whose children are indented no deeper. GPU-NVL-GPU and GPU-NVL-NVS edges are kept.
#pragma once

#include "model/nccl_log.hpp"
#include "sources/nccl/text_cursor.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace peergate::sources::nccl {

// NCCL's bus id as it appears in "busId 1b000" and "GPU/0-1B000": lower-case hex, no
// leading zeros, the "D-" domain prefix folded in above bit 20. Empty when not hex.
std::string normalize_bus_id(std::string_view text);

// One dump in progress: the open nodes of one printing thread.
class TopologyDumpReader {
public:
    // True when `body` starts a dump ("=== System : ...").
    // Inline, with the first character checked before the compare: it runs on every record.
    static bool is_dump_start(std::string_view body) {
        std::size_t at = 0;
        while (at < body.size() && (body[at] == ' ' || body[at] == '\t')) {
            ++at;
        }
        return at < body.size() && body[at] == '=' &&
               starts_with_text(body.substr(at), "=== System :");
    }

    void start() {
        active_ = true;
        stack_.clear();
    }

    bool active() const { return active_; }

    // Reads one line of the dump into `topology`; false (and the dump ends) when the line
    // is not part of a dump.
    bool read(std::string_view body, model::NcclHostTopology& topology);

private:
    struct Open {
        std::size_t child_level = 0;
        std::string node;  // "GPU/1b000", "NVS/0", "PCI/17000", ...
    };

    bool active_ = false;
    std::vector<Open> stack_;
};

}  // namespace peergate::sources::nccl
