// SPDX-License-Identifier: Apache-2.0
#include "sources/nccl/nccl_gdr.hpp"

#include "sources/nccl/text_cursor.hpp"

#include <algorithm>

namespace peergate::sources::nccl {

namespace {

constexpr std::string_view kGdr = "GPU Direct RDMA ";
constexpr std::string_view kDmaBuf = "DMA-BUF is available on GPU device ";

// "Enabled"/"enabled"/"Disabled"/"disabled"; nullopt for anything else.
std::optional<bool> read_state(TextCursor& cursor) {
    if (cursor.consume("Enabled") || cursor.consume("enabled")) {
        return true;
    }
    if (cursor.consume("Disabled") || cursor.consume("disabled")) {
        return false;
    }
    return std::nullopt;
}

// "(distance 8 > 5)" after a decision's HCA; the line is kept without it when it is absent.
void read_distance(TextCursor& cursor, model::NcclGdrLine& line) {
    cursor.skip_spaces();
    if (!cursor.consume("(distance ")) {
        return;
    }
    const auto distance = cursor.integer();
    const std::string_view comparison = cursor.word();
    cursor.skip_spaces();
    const auto limit = cursor.integer();
    if (distance && limit &&
        (comparison == ">" || comparison == ">=" || comparison == "<=" || comparison == "<")) {
        line.distance = distance;
        line.comparison = std::string(comparison);
        line.limit = limit;
    }
}

// "0 'mlx5_0' (no module)": the HCA as printed, its quote closed, and the parenthesis.
void read_capability(std::string_view rest, model::NcclGdrLine& line) {
    rest = trim_view(rest);
    const std::size_t paren = rest.rfind(" (");
    if (paren != std::string_view::npos && rest.back() == ')') {
        line.reason = std::string(rest.substr(paren + 2, rest.size() - paren - 3));
        rest = trim_view(rest.substr(0, paren));
    }
    line.hca = std::string(rest);
    if (std::count(line.hca.begin(), line.hca.end(), '\'') % 2 == 1) {
        line.hca += '\'';  // NCCL's format string drops it in the "(...) enabled" form
    }
}

}  // namespace

std::optional<model::NcclGdrLine> parse_gdr(std::string_view body) {
    model::NcclGdrLine line;
    TextCursor cursor(trim_view(body));
    if (cursor.consume("NET/")) {
        line.net = std::string(cursor.until(':'));
        if (!cursor.consume(":") || line.net.empty() || line.net.back() != ' ') {
            return std::nullopt;
        }
        line.net.pop_back();
        cursor.skip_spaces();
    }
    if (!cursor.consume(kGdr)) {
        return std::nullopt;
    }
    if (cursor.consume("(")) {
        line.via = std::string(cursor.until(')'));
        if (!cursor.consume(") ")) {
            return std::nullopt;
        }
    }
    const auto enabled = read_state(cursor);
    if (!enabled) {
        return std::nullopt;
    }
    line.enabled = *enabled;
    if (cursor.consume(" for GPU ")) {
        line.gpu = std::string(cursor.word());
        if (line.gpu.empty() || !cursor.consume(" / HCA ")) {
            return std::nullopt;
        }
        line.hca = std::string(cursor.word());
        read_distance(cursor, line);
    } else if (cursor.consume(" for HCA ")) {
        read_capability(cursor.rest(), line);
    } else {
        return std::nullopt;
    }
    return line.hca.empty() ? std::nullopt : std::optional(std::move(line));
}

std::optional<int> parse_dma_buf_device(std::string_view body) {
    TextCursor cursor(trim_view(body));
    if (!cursor.consume(kDmaBuf)) {
        return std::nullopt;
    }
    const auto device = cursor.integer();
    return device && *device >= 0 && cursor.done() ? device : std::nullopt;
}

bool GdrRecords::read(std::string_view host, std::string_view body) {
    if (auto device = parse_dma_buf_device(body)) {
        add_dma_buf(std::string(host), *device);
        return true;
    }
    auto line = parse_gdr(body);
    if (!line) {
        return false;
    }
    line->host = std::string(host);
    add(std::move(*line));
    return true;
}

void GdrRecords::add(model::NcclGdrLine&& line) {
    const std::string key = line.host + '\n' + model::to_text(line);
    if (const auto at = index_.find(key); at != index_.end()) {
        lines_[at->second].count += line.count;
        return;
    }
    // The key and the line hold the same texts: charged twice.
    if (!budget_.admit(sizeof(model::NcclGdrLine) + 2 * (kEntryOverheadBytes + key.size()),
                       line.count)) {
        return;
    }
    index_.emplace(key, lines_.size());
    lines_.push_back(std::move(line));
}

void GdrRecords::add_dma_buf(const std::string& host, int device, std::uint64_t records) {
    auto at = dma_buf_.find(host);
    if (at == dma_buf_.end()) {
        if (!budget_.admit(kEntryOverheadBytes + sizeof(std::set<int>) + host.size(), records)) {
            return;
        }
        at = dma_buf_.emplace(host, std::set<int>{}).first;
    }
    if (!at->second.contains(device) && budget_.admit(kEntryOverheadBytes, records)) {
        at->second.insert(device);
    }
}

void GdrRecords::merge_from(GdrRecords&& later) {
    budget_.add_dropped(later.budget_);
    for (auto& line : later.lines_) {
        add(std::move(line));
    }
    for (auto& [host, devices] : later.dma_buf_) {
        for (const int device : devices) {
            add_dma_buf(host, device);
        }
    }
}

void GdrRecords::into(model::NcclLog& log) const {
    log.gdr = lines_;
    log.dma_buf_devices = dma_buf_;
}

}  // namespace peergate::sources::nccl
