// SPDX-License-Identifier: Apache-2.0
#include "sources/nccl/nccl_topo_xml.hpp"

#include "util/strings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <utility>

namespace peergate::sources::nccl {

namespace {

constexpr std::size_t kMaxText = 255;   // NCCL's MAX_STR_LEN, the terminator included
constexpr std::size_t kMaxAttrs = 16;   // NCCL's MAX_ATTR_COUNT: it ignores the rest
constexpr std::size_t kMaxDepth = 256;  // deeper than any PCI tree; bounds the stack

struct Tag {
    enum class Kind { open, close, single } kind = Kind::open;
    std::string name;
    std::vector<std::pair<std::string, std::string>> attrs;

    std::optional<std::string> attr(std::string_view key) const {
        for (const auto& [k, v] : attrs) {
            if (k == key) {
                return v;
            }
        }
        return std::nullopt;
    }
};

// NCCL's tokenizer: one character at a time, as xmlGetToken and xmlGetValue read them.
class TagReader {
public:
    explicit TagReader(std::string_view text) : text_(text) {}

    // The next tag, nullopt at the end of the text.
    util::Expected<std::optional<Tag>> next();

private:
    util::Unexpected error(const std::string& what) const {
        return util::unexpected(util::ErrorCode::invalid_input,
                                fmt::format("NCCL topology file, byte {}: {}", pos_, what));
    }

    bool get(char& c) {
        if (pos_ >= text_.size()) {
            return false;
        }
        c = text_[pos_++];
        return true;
    }

    static bool ends_token(char c) {
        return c == ' ' || c == '>' || c == '/' || c == '\n' || c == '\r';
    }

    util::Expected<char> token(std::string& out, std::string* value);
    util::Expected<char> quoted(std::string& out);
    util::Expected<void> skip_comment();
    util::Expected<void> attributes(Tag& tag, char& last);
    util::Expected<std::optional<Tag>> rest_of(Tag tag, char last);

    std::string_view text_;
    std::size_t pos_ = 0;
};

// Characters up to a terminator (returned) or, with `value`, up to '=' and a quoted value.
util::Expected<char> TagReader::token(std::string& out, std::string* value) {
    char c = 0;
    while (get(c)) {
        if (c == '=') {
            if (value == nullptr) {
                return error(fmt::format("unexpected value after \"{}\"", out));
            }
            return quoted(*value);
        }
        if (ends_token(c)) {
            return c;
        }
        if (out.size() + 1 >= kMaxText) {
            return error("a name of 255 characters or more");
        }
        out += c;
    }
    return error("the text ends inside a tag");
}

util::Expected<char> TagReader::quoted(std::string& out) {
    char quote = 0;
    if (!get(quote) || (quote != '"' && quote != '\'')) {
        return error("expected a quoted value");
    }
    char c = 0;
    while (get(c) && c != quote) {
        if (out.size() + 1 >= kMaxText) {
            return error("a value of 255 characters or more");
        }
        out += c;
    }
    char last = 0;
    if (c != quote || !get(last)) {
        return error("the text ends inside a value");
    }
    return last;
}

util::Expected<void> TagReader::skip_comment() {
    const auto end = text_.find("-->", pos_);
    if (end == std::string_view::npos) {
        return error("an unterminated comment");
    }
    pos_ = end + 3;
    return {};
}

util::Expected<void> TagReader::attributes(Tag& tag, char& last) {
    while (last == ' ') {
        std::string key;
        std::string value;
        auto c = token(key, &value);
        if (!c) {
            return util::unexpected(c.error());
        }
        last = *c;
        if (tag.attrs.size() < kMaxAttrs) {
            tag.attrs.emplace_back(std::move(key), std::move(value));
        }
    }
    return {};
}

util::Expected<std::optional<Tag>> TagReader::next() {
    for (;;) {  // a loop, not recursion: a run of comments must not grow the stack
        char c = ' ';
        while (c == ' ' || c == '\n' || c == '\r') {
            if (!get(c)) {
                return std::optional<Tag>();
            }
        }
        if (c != '<') {
            return error(fmt::format("expected '<', found '{}'", c));
        }
        Tag tag;
        auto last = token(tag.name, nullptr);
        if (!last) {
            return util::unexpected(last.error());
        }
        if (!tag.name.starts_with("!--")) {
            return rest_of(std::move(tag), *last);
        }
        pos_ -= tag.name.size() - 3 + 1;  // rescan from after "<!--" for "-->"
        PEERGATE_TRY(skip_comment());
    }
}

// A tag whose name has been read, up to its '>': a closing tag, or attributes and "/>".
util::Expected<std::optional<Tag>> TagReader::rest_of(Tag tag, char last) {
    if (tag.name.empty() && last == '/') {
        tag.kind = Tag::Kind::close;
        auto end = token(tag.name, nullptr);
        if (!end || *end != '>') {
            return end ? error("a closing tag that does not end at '>'")
                       : util::unexpected(end.error());
        }
        return std::optional<Tag>(std::move(tag));
    }
    PEERGATE_TRY(attributes(tag, last));
    if (last == '/') {
        tag.kind = Tag::Kind::single;
        std::string rest;
        auto closed = token(rest, nullptr);
        if (!closed) {
            return util::unexpected(closed.error());
        }
        last = *closed;
    }
    if (last != '>') {
        return error(fmt::format("<{}> does not end at '>'", tag.name));
    }
    return std::optional<Tag>(std::move(tag));
}

// The children NCCL's reader handles in each element; any other child is skipped whole.
bool handled(std::string_view parent, std::string_view child) {
    static constexpr std::array<std::pair<std::string_view, std::string_view>, 11> kHandled = {{
        {"", "system"},
        {"system", "cpu"},
        {"cpu", "pci"},
        {"cpu", "nic"},
        {"pci", "pci"},
        {"pci", "gpu"},
        {"pci", "nic"},
        {"pci", "pcilink"},
        {"gpu", "nvlink"},
        {"gpu", "c2c"},
        {"nic", "net"},
    }};
    return std::find(kHandled.begin(), kHandled.end(), std::pair(parent, child)) != kHandled.end();
}

}  // namespace

namespace {

// One open element: its name, whether NCCL reads it, and for a <pci> its bus id.
struct Open {
    std::string name;
    bool read = false;
    std::string busid;
};

util::Unexpected refuse(const std::string& what) {
    return util::unexpected(util::ErrorCode::invalid_input, "NCCL topology file: " + what);
}

util::Expected<void> check_system(const Tag& tag) {
    const auto version = tag.attr("version");
    if (!version) {
        return refuse("<system> has no version");
    }
    if (util::parse_int<int>(*version) != 1) {
        return refuse(fmt::format("<system version=\"{}\">: NCCL reads version 1 only", *version));
    }
    return {};
}

// An <nvlink> of the GPU being read: a GPU-class target is a peer, CPU class (0x068001, an
// IBM POWER9) is neither, anything else NCCL counts as an NVSwitch.
util::Expected<void> add_nvlink(const Tag& tag, model::NcclTopoGpu& gpu) {
    gpu.lists_nvlinks = true;
    const std::string tclass = tag.attr("tclass").value_or("");
    if (tclass.starts_with("0x03")) {
        const auto target = model::PciAddress::parse(tag.attr("target").value_or(""));
        if (!target) {
            return refuse(fmt::format("<nvlink target=\"{}\">: not a PCI bus id",
                                      tag.attr("target").value_or("")));
        }
        gpu.peers.push_back(*target);
    } else if (tclass != "0x068001") {
        gpu.to_switch = true;
    }
    return {};
}

// Opens `tag` under the innermost open element; a <gpu> starts a record.
util::Expected<void> open(const Tag& tag,
                          std::vector<Open>& stack,
                          std::vector<model::NcclTopoGpu>& gpus) {
    const Open* parent = stack.empty() ? nullptr : &stack.back();
    const bool read = (parent == nullptr || parent->read) &&
                      handled(parent == nullptr ? "" : parent->name, tag.name);
    if (read && tag.name == "system") {
        PEERGATE_TRY(check_system(tag));
    }
    if (read && tag.name == "gpu") {
        const auto bus = model::PciAddress::parse(parent->busid);
        if (!bus) {
            return refuse(
                fmt::format("<gpu> in <pci busid=\"{}\">: not a PCI bus id", parent->busid));
        }
        gpus.push_back({.bus = *bus});
    }
    if (read && tag.name == "nvlink") {
        PEERGATE_TRY(add_nvlink(tag, gpus.back()));
    }
    if (tag.kind == Tag::Kind::open) {
        if (stack.size() == kMaxDepth) {
            return refuse("elements nested more than 256 deep");
        }
        stack.push_back({.name = tag.name, .read = read, .busid = tag.attr("busid").value_or("")});
    }
    return {};
}

}  // namespace

util::Expected<std::vector<model::NcclTopoGpu>> parse_nccl_topo_xml(std::string_view text) {
    TagReader reader(text);
    std::vector<Open> stack;
    std::vector<model::NcclTopoGpu> gpus;
    for (;;) {
        auto tag = reader.next();
        if (!tag) {
            return util::unexpected(tag.error());
        }
        if (!*tag) {
            break;
        }
        if ((*tag)->kind != Tag::Kind::close) {
            PEERGATE_TRY(open(**tag, stack, gpus));
            continue;
        }
        if (stack.empty() || stack.back().name != (*tag)->name) {
            return refuse(fmt::format("</{}> closes {}",
                                      (*tag)->name,
                                      stack.empty() ? "nothing" : "<" + stack.back().name + ">"));
        }
        stack.pop_back();
    }
    if (!stack.empty()) {
        return refuse(fmt::format("<{}> is not closed", stack.back().name));
    }
    return gpus;
}

}  // namespace peergate::sources::nccl
