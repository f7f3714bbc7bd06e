// SPDX-License-Identifier: Apache-2.0
#include "report/probe/text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <utility>
#include <vector>

namespace peergate::report::probe {

namespace {

std::string paint(const std::string& text, const char* code, bool color) {
    return color ? fmt::format("\x1b[{}m{}\x1b[0m", code, text) : text;
}

std::string verdict_word(model::PairVerdict verdict, bool color) {
    switch (verdict) {
        case model::PairVerdict::ok:
            return paint("ok", "32", color);
        case model::PairVerdict::data_lost:
            return paint("DATA LOST", "1;31", color);
        case model::PairVerdict::error:
            return paint("error", "33", color);
        case model::PairVerdict::skipped:
            return paint("skipped", "33", color);
    }
    return "?";
}

std::string pad(const std::string& visible, std::size_t plain_width, std::size_t width) {
    return visible + std::string(width > plain_width ? width - plain_width : 1, ' ');
}

std::string plain_word(model::PairVerdict verdict) {
    return verdict == model::PairVerdict::data_lost ? "DATA LOST"
                                                    : std::string(model::to_string(verdict));
}

// Copies alone read as before paths existed; otherwise each path has a column of its own.
bool shows_paths(const model::ProbeResult& r) {
    return r.paths != std::vector<model::ProbePath>{model::ProbePath::ce};
}

// A path that did not apply to the pair (the driver refused the peer mapping) reads "n/a",
// not a skip to worry about; the result's reason says why.
bool not_applicable(const model::ProbeResult& r, const model::ProbePair& p, model::ProbePath path) {
    return std::any_of(
        r.paths_not_applicable.begin(), r.paths_not_applicable.end(), [&](const auto& entry) {
            return entry.path == path &&
                   std::find(entry.pairs.begin(), entry.pairs.end(), std::pair(p.src, p.dst)) !=
                       entry.pairs.end();
        });
}

std::string path_cell(const model::ProbeResult& r,
                      const model::ProbePair& p,
                      const model::ProbePathVerdict& v,
                      bool color) {
    if (not_applicable(r, p, v.path)) {
        return pad("n/a", 3, 12);
    }
    return pad(verdict_word(v.verdict, color), plain_word(v.verdict).size(), 12);
}

std::string pair_rows(const model::ProbeResult& r, bool color) {
    std::string out = pad("pair", 4, 14);
    for (const auto mode : r.modes) {
        out += pad(std::string(model::to_string(mode)), model::to_string(mode).size(), 15);
    }
    const bool paths = shows_paths(r);
    for (const auto path : paths ? r.paths : std::vector<model::ProbePath>{}) {
        out += pad(std::string(model::to_string(path)), model::to_string(path).size(), 12);
    }
    out += "detail\n";
    for (const auto& p : r.pairs) {
        const std::string name = fmt::format("GPU {} -> {}", p.src, p.dst);
        out += pad(name, name.size(), 14);
        for (const auto& m : p.modes) {
            out += pad(verdict_word(m.verdict, color), plain_word(m.verdict).size(), 15);
        }
        for (const auto& v : paths ? p.paths : std::vector<model::ProbePathVerdict>{}) {
            out += path_cell(r, p, v, color);
        }
        out += p.detail + "\n";
    }
    return out;
}

}  // namespace

std::string probe_to_text(const model::ProbeResult& r, bool color) {
    std::string out;
    if (!r.pairs.empty()) {
        out += pair_rows(r, color);
    }
    if (r.device_s) {
        out += fmt::format("device time: {:.4f} s (each group's slowest transfer, CUDA events)\n",
                           *r.device_s);
    }
    if (!r.verify_note.empty()) {
        out += "note: " + r.verify_note + "\n";
    }
    const char* word = r.outcome == model::ProbeOutcome::pass   ? "PASS"
                       : r.outcome == model::ProbeOutcome::fail ? "FAIL"
                                                                : "INCONCLUSIVE";
    const char* tint = r.outcome == model::ProbeOutcome::pass   ? "1;32"
                       : r.outcome == model::ProbeOutcome::fail ? "1;31"
                                                                : "1;33";
    out += fmt::format("result: {}: {}\n", paint(word, tint, color), r.reason);
    if (!r.remedy.empty()) {
        out += "remedy: " + r.remedy + "\n";
    }
    return out;
}

std::string probe_progress_line(const model::ProbeCell& cell,
                                std::size_t done,
                                std::size_t total,
                                int round) {
    constexpr std::size_t kWidth = 30;
    const std::size_t filled = total == 0 ? kWidth : done * kWidth / total;
    return fmt::format("{}[{}{}] {}/{} cells  GPU {} -> {} {} MiB {} {}",
                       round > 0 ? fmt::format("round {} ", round + 1) : "",
                       std::string(filled, '#'),
                       std::string(kWidth - filled, '.'),
                       done,
                       total,
                       cell.src,
                       cell.dst,
                       cell.size_bytes >> 20U,
                       model::to_string(cell.mode),
                       model::to_string(cell.path_kind));
}

}  // namespace peergate::report::probe
