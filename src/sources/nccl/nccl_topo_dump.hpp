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

struct DumpLine;

// One dump in progress: the open nodes of one printing thread.
class TopologyDumpReader {
public:
    // Deeper than any machine NCCL describes (CPU, PCI switches, GPU, NVSwitch), and
    // longer than any node id it prints: a line past either is not part of a dump, so a
    // reader holds at most kMaxDepth nodes of kMaxNodeBytes.
    static constexpr std::size_t kMaxDepth = 32;
    static constexpr std::size_t kMaxNodeBytes = 64;

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
        skipping_ = false;
        stack_.clear();
        held_bytes_ = 0;
    }

    bool active() const { return active_; }

    // Reads one line of the dump into `topology`; false (and the dump ends) when the line
    // is not part of a dump.
    bool read(std::string_view body, model::NcclHostTopology& topology);

    // From now until the next start(), read() only tells dump lines from others (by their
    // shape) and keeps nothing: the parser's budget for dumps is spent.
    void skip_rest();

    bool skipping() const { return skipping_; }

    // The entries (GPUs, NVLink pairs, switches and their members) the last read() added:
    // at most kMaxAddedPerLine.
    std::size_t last_added() const { return last_added_; }

    static constexpr std::size_t kMaxAddedPerLine = 3;

    // The most bytes of open nodes this reader has held at once, and what one more line
    // can add to it.
    std::size_t peak_bytes() const { return peak_bytes_; }

    static constexpr std::size_t kMaxStepBytes =
        sizeof(std::size_t) + sizeof(std::string) + kMaxNodeBytes;

private:
    struct Open {
        std::size_t child_level = 0;
        std::string node;  // "GPU/1b000", "NVS/0", "PCI/17000", ...
    };

    bool read_child(DumpLine&& line, model::NcclHostTopology& topology);
    bool read_top(DumpLine&& line, model::NcclHostTopology& topology);
    void push(std::size_t child_level, std::string&& node);
    void pop();

    bool active_ = false;
    bool skipping_ = false;
    std::size_t last_added_ = 0;
    std::size_t held_bytes_ = 0;
    std::size_t peak_bytes_ = 0;
    std::vector<Open> stack_;
};

}  // namespace peergate::sources::nccl
