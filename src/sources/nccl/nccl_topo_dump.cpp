// SPDX-License-Identifier: Apache-2.0
#include "sources/nccl/nccl_topo_dump.hpp"

#include "sources/nccl/text_cursor.hpp"

#include <algorithm>
#include <optional>

namespace peergate::sources::nccl {

namespace {

int hex_digit(char c) {
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

std::optional<unsigned long long> parse_hex_value(std::string_view text) {
    if (text.empty() || text.size() > 15) {
        return std::nullopt;
    }
    unsigned long long value = 0;
    for (char c : text) {
        const int digit = hex_digit(c);
        if (digit < 0) {
            return std::nullopt;
        }
        value = value * 16 + static_cast<unsigned long long>(digit);
    }
    return value;
}

std::string to_hex(unsigned long long value) {
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string out;
    do {
        out.insert(out.begin(), kDigits[value % 16]);
        value /= 16;
    } while (value != 0);
    return out;
}

bool known_node_type(std::string_view type) {
    for (std::string_view known : {"GPU", "PCI", "NVS", "CPU", "NIC", "NET", "C2C"}) {
        if (type == known) {
            return true;
        }
    }
    return false;
}

// "GPU/0-19000" -> "GPU/19000"; other nodes keep their id as printed.
std::optional<std::string> read_node(std::string_view token) {
    if (token.size() > TopologyDumpReader::kMaxNodeBytes) {
        return std::nullopt;  // NCCL's ids are a few hex digits ("PCI/0-17000")
    }
    const std::size_t slash = token.find('/');
    if (slash == std::string_view::npos || !known_node_type(token.substr(0, slash))) {
        return std::nullopt;
    }
    const std::string_view type = token.substr(0, slash);
    const std::string_view id = token.substr(slash + 1);
    if (type != "GPU") {
        return std::string(token);
    }
    const std::string bus = normalize_bus_id(id);
    if (bus.empty()) {
        return std::nullopt;
    }
    return "GPU/" + bus;
}

bool is_gpu(const std::string& node) {
    return node.rfind("GPU/", 0) == 0;
}

// Each returns how many entries it added to `topology` (the parser's budget counts them).
std::size_t record_gpu(const std::string& node,
                       std::string_view after,
                       model::NcclHostTopology& topology) {
    const auto [at, added] = topology.gpus.try_emplace(node.substr(4));
    auto& rank = at->second;
    TextCursor cursor(trim_view(after));
    if (cursor.consume("(")) {
        if (auto value = cursor.integer(); value && cursor.consume(")") && *value >= 0) {
            rank = *value;
        }
    }
    return added ? 1 : 0;
}

std::size_t record_switch_member(const std::string& nvswitch,
                                 const std::string& gpu,
                                 model::NcclHostTopology& topology) {
    const auto [at, new_switch] = topology.nvswitches.try_emplace(nvswitch);
    const bool new_member = at->second.insert(gpu.substr(4)).second;
    return std::size_t{new_switch} + std::size_t{new_member};
}

std::size_t record_link(const std::string& parent,
                        std::string_view link,
                        const std::string& node,
                        model::NcclHostTopology& topology) {
    if (link != "NVL") {
        return 0;
    }
    if (is_gpu(parent) && is_gpu(node)) {
        std::string a = parent.substr(4);
        std::string b = node.substr(4);
        if (a != b) {
            return topology.nvlinks.insert(a < b ? std::pair{a, b} : std::pair{b, a}).second ? 1
                                                                                             : 0;
        }
    } else if (is_gpu(parent) && node.rfind("NVS/", 0) == 0) {
        return record_switch_member(node, parent, topology);
    } else if (parent.rfind("NVS/", 0) == 0 && is_gpu(node)) {
        return record_switch_member(parent, node, topology);
    }
    return 0;
}

}  // namespace

std::string normalize_bus_id(std::string_view text) {
    unsigned long long domain = 0;
    if (const std::size_t dash = text.find('-'); dash != std::string_view::npos) {
        auto parsed = parse_hex_value(text.substr(0, dash));
        if (!parsed || *parsed > 0xffffffULL) {
            return {};
        }
        domain = *parsed;
        text = text.substr(dash + 1);
    }
    auto value = parse_hex_value(text);
    if (!value) {
        return {};
    }
    return to_hex((domain << 20) | *value);
}

// One line of a dump: "NODE (rest)" at the top, or "+ LINK[bw] - NODE (rest)" below it.
struct DumpLine {
    std::size_t indent = 0;
    std::optional<std::string_view> link;  // absent on a top-level line
    std::string node;
    std::string_view rest;
};

namespace {

std::optional<DumpLine> parse_dump_line(std::string_view body) {
    DumpLine line;
    while (line.indent < body.size() && body[line.indent] == ' ') {
        ++line.indent;
    }
    TextCursor cursor(body.substr(line.indent));
    if (cursor.consume("+ ")) {
        line.link = cursor.until('[');
        if (!cursor.consume("[") || cursor.until(']').empty() || !cursor.consume("]") ||
            (cursor.skip_spaces(), !cursor.consume("- "))) {
            return std::nullopt;
        }
    }
    auto node = read_node(cursor.word());
    if (!node) {
        return std::nullopt;
    }
    line.node = std::move(*node);
    line.rest = cursor.rest();
    return line;
}

}  // namespace

bool TopologyDumpReader::read(std::string_view body, model::NcclHostTopology& topology) {
    last_added_ = 0;
    auto line = parse_dump_line(body);
    if (!line) {
        active_ = false;
        return false;
    }
    if (skipping_) {
        return true;
    }
    return line->link ? read_child(std::move(*line), topology)
                      : read_top(std::move(*line), topology);
}

bool TopologyDumpReader::read_child(DumpLine&& line, model::NcclHostTopology& topology) {
    while (!stack_.empty() && stack_.back().child_level > line.indent) {
        pop();
    }
    if (stack_.empty() || stack_.size() >= kMaxDepth) {
        active_ = false;
        return false;
    }
    last_added_ += record_link(stack_.back().node, *line.link, line.node, topology);
    if (is_gpu(line.node)) {
        last_added_ += record_gpu(line.node, line.rest, topology);
    }
    push(line.indent + 1, std::move(line.node));
    return true;
}

bool TopologyDumpReader::read_top(DumpLine&& line, model::NcclHostTopology& topology) {
    while (!stack_.empty()) {
        pop();
    }
    if (is_gpu(line.node)) {
        last_added_ += record_gpu(line.node, line.rest, topology);
    }
    push(line.indent, std::move(line.node));
    return true;
}

void TopologyDumpReader::push(std::size_t child_level, std::string&& node) {
    held_bytes_ += sizeof(Open) + node.size();
    peak_bytes_ = std::max(peak_bytes_, held_bytes_);
    stack_.push_back(Open{child_level, std::move(node)});
}

void TopologyDumpReader::pop() {
    held_bytes_ -= sizeof(Open) + stack_.back().node.size();
    stack_.pop_back();
}

void TopologyDumpReader::skip_rest() {
    skipping_ = true;
    stack_.clear();
    stack_.shrink_to_fit();
    held_bytes_ = 0;
}

}  // namespace peergate::sources::nccl
