// SPDX-License-Identifier: Apache-2.0
#include "sources/nccl/nccl_topo_dump.hpp"

#include "sources/nccl/text_cursor.hpp"

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

void record_gpu(const std::string& node,
                std::string_view after,
                model::NcclHostTopology& topology) {
    auto& rank = topology.gpus[node.substr(4)];
    TextCursor cursor(trim_view(after));
    if (cursor.consume("(")) {
        if (auto value = cursor.integer(); value && cursor.consume(")") && *value >= 0) {
            rank = *value;
        }
    }
}

void record_link(const std::string& parent,
                 std::string_view link,
                 const std::string& node,
                 model::NcclHostTopology& topology) {
    if (link != "NVL") {
        return;
    }
    if (is_gpu(parent) && is_gpu(node)) {
        std::string a = parent.substr(4);
        std::string b = node.substr(4);
        if (a != b) {
            topology.nvlinks.insert(a < b ? std::pair{a, b} : std::pair{b, a});
        }
    } else if (is_gpu(parent) && node.rfind("NVS/", 0) == 0) {
        topology.nvswitches[node].insert(parent.substr(4));
    } else if (parent.rfind("NVS/", 0) == 0 && is_gpu(node)) {
        topology.nvswitches[parent].insert(node.substr(4));
    }
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

bool TopologyDumpReader::read(std::string_view body, model::NcclHostTopology& topology) {
    std::size_t indent = 0;
    while (indent < body.size() && body[indent] == ' ') {
        ++indent;
    }
    TextCursor cursor(body.substr(indent));
    if (cursor.consume("+ ")) {
        const std::string_view link = cursor.until('[');
        if (!cursor.consume("[") || cursor.until(']').empty() || !cursor.consume("]") ||
            (cursor.skip_spaces(), !cursor.consume("- "))) {
            active_ = false;
            return false;
        }
        auto node = read_node(cursor.word());
        while (!stack_.empty() && stack_.back().child_level > indent) {
            stack_.pop_back();
        }
        if (!node || stack_.empty()) {
            active_ = false;
            return false;
        }
        record_link(stack_.back().node, link, *node, topology);
        if (is_gpu(*node)) {
            record_gpu(*node, cursor.rest(), topology);
        }
        stack_.push_back(Open{indent + 1, std::move(*node)});
        return true;
    }
    auto node = read_node(cursor.word());
    if (!node) {
        active_ = false;
        return false;
    }
    stack_.clear();
    if (is_gpu(*node)) {
        record_gpu(*node, cursor.rest(), topology);
    }
    stack_.push_back(Open{indent, std::move(*node)});
    return true;
}

}  // namespace peergate::sources::nccl
