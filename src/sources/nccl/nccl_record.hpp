// SPDX-License-Identifier: Apache-2.0
// Splits one physical log line into NCCL records: "host:pid:tid [dev] NCCL INFO <body>".
// Launcher prefixes ("[1,0]<stdout>:", "+ ", timestamps, "- INFO -") are whatever stands
// before the host:pid:tid token and are ignored. A flattened paste with several records on
// one line yields each of them. Views only: nothing is copied.
#pragma once

#include <string_view>

namespace peergate::sources::nccl {

struct NcclRecord {
    std::string_view host;    // "node1"; empty when the line had no host:pid:tid token
    std::string_view source;  // "node1:1234:1250": one thread of one process; may be empty
    std::string_view body;    // after "NCCL INFO ", leading spaces kept (topology dumps indent)
    bool marked = false;      // false: the line had no "NCCL INFO" and body is the whole line
};

// Where the prefix of a record whose "NCCL INFO" starts at `marker` begins, and its
// host and source. `floor` is the first position the prefix may use.
struct RecordPrefix {
    std::size_t start = 0;
    std::string_view host;
    std::string_view source;
};

RecordPrefix read_prefix(std::string_view line, std::size_t marker, std::size_t floor);

// The usual shape "host:pid:tid [dev] NCCL INFO ..." read forwards from the line's start:
// the first marker's position, with `prefix` = read_prefix(line, marker, 0); npos (and
// `prefix` untouched) for any other shape. Saves searching the line for the marker and
// scanning back over the prefix. Only a token without blanks, one space, a bracket
// without blanks or '[', one space and the marker match, so no earlier marker can hide
// in what was skipped.
std::size_t read_leading_prefix(std::string_view line, RecordPrefix& prefix);

// Finds the next "NCCL INFO" marker at or after `from`; npos when none.
std::size_t find_marker(std::string_view line, std::size_t from);

inline constexpr std::string_view kMarker = "NCCL INFO";

// Calls visit(const NcclRecord&) for the record whose "NCCL INFO" starts at `marker`, with
// its prefix already read, and for every record after it on the line.
template <typename Visit>
void for_each_record_from(std::string_view line,
                          std::size_t marker,
                          RecordPrefix prefix,
                          Visit&& visit) {
    while (marker != std::string_view::npos) {
        std::size_t body_start = marker + kMarker.size();
        if (body_start < line.size() && line[body_start] == ' ') {
            ++body_start;
        }
        const std::size_t next = find_marker(line, body_start);
        std::size_t body_end = line.size();
        RecordPrefix next_prefix;
        if (next != std::string_view::npos) {
            next_prefix = read_prefix(line, next, body_start);
            body_end = next_prefix.start;
            while (body_end > body_start && line[body_end - 1] == ' ') {
                --body_end;
            }
        }
        visit(NcclRecord{
            prefix.host, prefix.source, line.substr(body_start, body_end - body_start), true});
        marker = next;
        prefix = next_prefix;
    }
}

// `line` less Open MPI's --tag-output prefix ("[1,0]<stdout>:", "[1,3]<stderr>:"), for a
// line without the NCCL INFO marker: its body is read from its first word.
std::string_view without_launcher_tag(std::string_view line);

// Calls visit(const NcclRecord&) for each record of `line` (one unmarked record when
// the line has no marker). `line` must not contain '\n'; a trailing '\r' is dropped.
template <typename Visit>
void for_each_record(std::string_view line, Visit&& visit) {
    if (!line.empty() && line.back() == '\r') {
        line.remove_suffix(1);
    }
    RecordPrefix prefix;
    std::size_t marker = read_leading_prefix(line, prefix);
    if (marker == std::string_view::npos) {
        marker = find_marker(line, 0);
        if (marker == std::string_view::npos) {
            visit(NcclRecord{{}, {}, without_launcher_tag(line), false});
            return;
        }
        prefix = read_prefix(line, marker, 0);
    }
    for_each_record_from(line, marker, prefix, visit);
}

}  // namespace peergate::sources::nccl
