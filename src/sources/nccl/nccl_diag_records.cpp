// SPDX-License-Identifier: Apache-2.0
#include "sources/nccl/nccl_diag_records.hpp"

#include "sources/nccl/nccl_diag.hpp"
#include "sources/nccl/nccl_ras_lines.hpp"

namespace peergate::sources::nccl {

namespace {

// The report's frame: "=== NCCL Diagnostics ===", "NCCL diagnostics completed in 41.7 ms
// across 3 ranks", and RAS diagnostics' own: read, nothing to keep.
bool is_report_frame(std::string_view rest) {
    return rest.starts_with("===") || rest.find(" completed in ") != std::string_view::npos;
}

// The key of a line: which list, the host and NCCL's words (the words hold every field).
std::string key_of(char list, const std::string& host, const std::string& text) {
    std::string key(1, list);
    key.append(host).append(1, '\n').append(text);
    return key;
}

}  // namespace

bool DiagRecords::read(std::string_view host, std::string_view body, bool marked) {
    if (marked) {
        return read_marked(host, body);
    }
    if (const auto marker = split_diag_marker(body)) {
        return read_diag(marker->host, marker->rest);
    }
    // Unprefixed: an INFO body pasted without its prefix, or ncclras's output.
    if (read_marked(host, body)) {
        return true;
    }
    auto ras = parse_ras_line(body);
    if (ras) {
        add(std::move(*ras));
    }
    return ras.has_value();
}

// "Diagnostics P2P ..." and "RAS ..." INFO bodies.
bool DiagRecords::read_marked(std::string_view host, std::string_view body) {
    if (body.starts_with("Diagnostics P2P ")) {
        auto line = parse_p2p_diagnostics(body);
        if (line) {
            line->host = std::string(host);
            add(std::move(*line));
        }
        return line.has_value();
    }
    if (body.starts_with("RAS ")) {
        auto line = parse_ras_line(body);
        if (line) {
            line->host = std::string(host);
            add(std::move(*line));
        }
        return line.has_value();
    }
    return false;
}

// What follows "host:pid NCCL DIAG ": a p2p report line, a RAS diagnostics check, or the
// report's frame. Any other DIAG line is still taken: no other reader wants it.
bool DiagRecords::read_diag(std::string_view host, std::string_view rest) {
    if (is_report_frame(rest)) {
        return true;
    }
    if (auto line = parse_p2p_diagnostics(rest)) {
        line->host = std::string(host);
        add(std::move(*line));
    } else if (auto ras = parse_ras_line(rest)) {
        ras->host = std::string(host);
        add(std::move(*ras));
    }
    return true;
}

void DiagRecords::add(model::NcclDiagLine&& line) {
    const std::string key = key_of('d', line.host, line.text);
    if (const auto at = index_.find(key); at != index_.end()) {
        diagnostics_[at->second].count += line.count;
        return;
    }
    // The key and the line hold the same texts: charged twice.
    if (!budget_.admit(sizeof(line) + 2 * (kEntryOverheadBytes + key.size()), line.count)) {
        return;
    }
    index_.emplace(key, diagnostics_.size());
    diagnostics_.push_back(std::move(line));
}

void DiagRecords::add(model::NcclRasLine&& line) {
    const std::string key = key_of('r', line.host, line.text);
    if (const auto at = index_.find(key); at != index_.end()) {
        ras_[at->second].count += line.count;
        return;
    }
    if (!budget_.admit(sizeof(line) + 2 * (kEntryOverheadBytes + key.size()), line.count)) {
        return;
    }
    index_.emplace(key, ras_.size());
    ras_.push_back(std::move(line));
}

void DiagRecords::merge_from(DiagRecords&& later) {
    budget_.add_dropped(later.budget_);
    for (auto& line : later.diagnostics_) {
        add(std::move(line));
    }
    for (auto& line : later.ras_) {
        add(std::move(line));
    }
}

void DiagRecords::into(model::NcclLog& log) const {
    log.diagnostics = diagnostics_;
    log.ras = ras_;
}

}  // namespace peergate::sources::nccl
