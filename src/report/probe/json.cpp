// SPDX-License-Identifier: Apache-2.0
#include "report/probe/json.hpp"

#include "util/json_read.hpp"

namespace peergate::report::probe {

namespace {

using OJson = nlohmann::ordered_json;

template <typename T>
OJson or_null(const std::optional<T>& value) {
    return value ? OJson(*value) : OJson(nullptr);
}

// A handshake cell's outcome: intact, data_lost or flag_lost; null for the other paths and
// for a handshake that did not finish.
OJson handshake_json(const model::ProbeCell& c) {
    const auto outcome = model::handshake_outcome(c.status);
    if (c.path_kind != model::ProbePath::handshake || outcome.empty()) {
        return nullptr;
    }
    return outcome;
}

OJson cell_json(const model::ProbeCell& c) {
    return OJson{{"src", c.src},
                 {"dst", c.dst},
                 {"size_bytes", c.size_bytes},
                 {"mode", model::to_string(c.mode)},
                 {"repeats", c.repeats},
                 {"status", model::to_string(c.status)},
                 {"wrong", c.wrong},
                 {"dropped", c.dropped},
                 {"first_bad_offset", or_null(c.first_bad_offset)},
                 {"gbps", or_null(c.gbps)},
                 {"path", model::to_string(c.path)},
                 {"verify", model::to_string(c.verify)},
                 {"detail", c.detail.empty() ? OJson(nullptr) : OJson(c.detail)},
                 {"path_kind", model::to_string(c.path_kind)},
                 {"flags_lost", c.flags_lost},
                 {"handshake", handshake_json(c)}};
}

OJson pair_json(const model::ProbePair& p) {
    OJson modes = OJson::object();
    for (const auto& m : p.modes) {
        modes[std::string(model::to_string(m.mode))] = model::to_string(m.verdict);
    }
    OJson paths = OJson::object();
    for (const auto& v : p.paths) {
        paths[std::string(model::to_string(v.path))] = model::to_string(v.verdict);
    }
    return OJson{{"src", p.src},
                 {"dst", p.dst},
                 {"verdict", model::to_string(p.verdict)},
                 {"detail", p.detail},
                 {"modes", modes},
                 {"rounds", p.rounds},
                 {"soak_s", or_null(p.soak_s)},
                 {"paths", paths}};
}

// Each path that did not apply to some pairs: the path, why (a token and its words), the pairs.
OJson not_applicable_json(const std::vector<model::ProbePathNotApplicable>& entries) {
    OJson out = OJson::array();
    for (const auto& entry : entries) {
        OJson pairs = OJson::array();
        for (const auto& [src, dst] : entry.pairs) {
            pairs.push_back(OJson{{"src", src}, {"dst", dst}});
        }
        out.push_back(OJson{{"path", model::to_string(entry.path)},
                            {"why", model::to_string(entry.why)},
                            {"reason", model::describe(entry.why)},
                            {"pairs", pairs}});
    }
    return out;
}

template <typename Enum, std::size_t N>
std::optional<Enum> parse_enum(const std::string& text, const Enum (&values)[N]) {
    for (const auto v : values) {
        if (model::to_string(v) == text) {
            return v;
        }
    }
    return std::nullopt;
}

constexpr model::CellStatus kStatuses[] = {model::CellStatus::ok,
                                           model::CellStatus::dropped,
                                           model::CellStatus::corrupted,
                                           model::CellStatus::error,
                                           model::CellStatus::skipped,
                                           model::CellStatus::flag_lost};
constexpr model::PairVerdict kVerdicts[] = {model::PairVerdict::ok,
                                            model::PairVerdict::data_lost,
                                            model::PairVerdict::error,
                                            model::PairVerdict::skipped};
constexpr model::ProbeOutcome kOutcomes[] = {
    model::ProbeOutcome::pass, model::ProbeOutcome::fail, model::ProbeOutcome::inconclusive};
constexpr model::ProbeMode kModes[] = {
    model::ProbeMode::serial, model::ProbeMode::bidirectional, model::ProbeMode::concurrent};
constexpr model::CopyPath kPaths[] = {model::CopyPath::direct, model::CopyPath::staged};
constexpr model::VerifySite kSites[] = {model::VerifySite::device, model::VerifySite::host};

// A cell written before paths existed was a copy. A path this version does not know vouches
// for nothing: the cell is read as skipped, so no cached pass can rest on it.
void read_path_kind(const nlohmann::json& j, model::ProbeCell& c) {
    c.flags_lost =
        j.contains("flags_lost") ? util::json_integer_at<std::uint64_t>(j, "flags_lost") : 0;
    if (!j.contains("path_kind")) {
        return;
    }
    const auto path = model::parse_probe_path(j.at("path_kind").get<std::string>());
    if (path) {
        c.path_kind = *path;
        return;
    }
    c.status = model::CellStatus::skipped;
    c.detail = "path_kind '" + j.at("path_kind").get<std::string>() + "' is not known here";
}

model::ProbeCell cell_from(const nlohmann::json& j) {
    model::ProbeCell c;
    c.src = util::json_integer_at<int>(j, "src");
    c.dst = util::json_integer_at<int>(j, "dst");
    c.size_bytes = util::json_integer_at<std::uint64_t>(j, "size_bytes");
    c.mode = parse_enum(j.at("mode").get<std::string>(), kModes).value_or(model::ProbeMode::serial);
    c.repeats = util::json_integer_at<int>(j, "repeats");
    c.status = parse_enum(j.at("status").get<std::string>(), kStatuses)
                   .value_or(model::CellStatus::skipped);
    c.wrong = util::json_integer_at<std::uint64_t>(j, "wrong");
    c.dropped = util::json_integer_at<std::uint64_t>(j, "dropped");
    if (!j.at("first_bad_offset").is_null()) {
        c.first_bad_offset = util::json_integer_at<std::uint64_t>(j, "first_bad_offset");
    }
    if (!j.at("gbps").is_null()) {
        c.gbps = util::json_finite_at(j, "gbps");
    }
    c.path = parse_enum(j.value("path", "direct"), kPaths).value_or(model::CopyPath::direct);
    c.verify = parse_enum(j.value("verify", "host"), kSites).value_or(model::VerifySite::host);
    c.detail = j.at("detail").is_null() ? "" : j.at("detail").get<std::string>();
    read_path_kind(j, c);
    return c;
}

// `run`'s rounds and soak stand for a pair's own where the pair has none (written before
// pairs carried them).
model::ProbePair pair_from(const nlohmann::json& j, const model::ProbeResult& run) {
    model::ProbePair p{.rounds = run.rounds, .soak_s = run.soak_s};
    if (j.contains("rounds")) {
        p.rounds = util::json_integer_at<int>(j, "rounds");
        p.soak_s = j.at("soak_s").is_null() ? std::nullopt
                                            : std::optional(util::json_finite_at(j, "soak_s"));
    }
    p.src = util::json_integer_at<int>(j, "src");
    p.dst = util::json_integer_at<int>(j, "dst");
    p.verdict = parse_enum(j.at("verdict").get<std::string>(), kVerdicts)
                    .value_or(model::PairVerdict::skipped);
    p.detail = j.at("detail").get<std::string>();
    for (const auto mode : kModes) {
        const std::string name(model::to_string(mode));
        if (j.contains("modes") && j["modes"].contains(name)) {
            p.modes.push_back({mode,
                               parse_enum(j["modes"][name].get<std::string>(), kVerdicts)
                                   .value_or(model::PairVerdict::skipped)});
        }
    }
    for (const auto path : model::kAllProbePaths) {
        const std::string name(model::to_string(path));
        if (j.contains("paths") && j["paths"].contains(name)) {
            p.paths.push_back({path,
                               parse_enum(j["paths"][name].get<std::string>(), kVerdicts)
                                   .value_or(model::PairVerdict::skipped)});
        }
    }
    return p;
}

// Paths came later: a result without them probed copies alone.
void read_paths(const nlohmann::json& j, model::ProbeResult& r) {
    if (j.contains("paths")) {
        r.paths.clear();
        for (const auto& p : j.at("paths")) {
            if (auto path = model::parse_probe_path(p.get<std::string>())) {
                r.paths.push_back(*path);
            }
        }
    }
    if (j.contains("device_s") && !j.at("device_s").is_null()) {
        r.device_s = util::json_finite_at(j, "device_s");
    }
    r.quick = j.value("quick", false);
}

// Came after the paths: a result without it said nothing of what did not apply. An entry whose
// path or why this version does not know is left out (it applied nowhere it could vouch).
void read_not_applicable(const nlohmann::json& j, model::ProbeResult& r) {
    if (!j.contains("paths_not_applicable")) {
        return;
    }
    for (const auto& entry : j.at("paths_not_applicable")) {
        const auto path = model::parse_probe_path(entry.at("path").get<std::string>());
        const auto why = model::parse_not_applicable_why(entry.at("why").get<std::string>());
        if (!path || !why) {
            continue;
        }
        model::ProbePathNotApplicable read{.path = *path, .why = *why};
        for (const auto& pair : entry.at("pairs")) {
            read.pairs.emplace_back(util::json_integer_at<int>(pair, "src"),
                                    util::json_integer_at<int>(pair, "dst"));
        }
        r.paths_not_applicable.push_back(std::move(read));
    }
}

}  // namespace

nlohmann::ordered_json probe_to_json(const model::ProbeResult& r) {
    OJson modes = OJson::array();
    for (const auto m : r.modes) {
        modes.push_back(model::to_string(m));
    }
    OJson cells = OJson::array();
    for (const auto& c : r.cells) {
        cells.push_back(cell_json(c));
    }
    OJson pairs = OJson::array();
    for (const auto& p : r.pairs) {
        pairs.push_back(pair_json(p));
    }
    OJson paths = OJson::array();
    for (const auto p : r.paths) {
        paths.push_back(model::to_string(p));
    }
    return OJson{{"schema", "peergate.probe/v1"},
                 {"result", model::to_string(r.outcome)},
                 {"reason", r.reason},
                 {"gpus", r.gpus},
                 {"modes", modes},
                 {"verify", r.verify ? OJson(model::to_string(*r.verify)) : OJson(nullptr)},
                 {"verify_note", r.verify_note.empty() ? OJson(nullptr) : OJson(r.verify_note)},
                 {"cells", cells},
                 {"pairs", pairs},
                 {"remedy", r.remedy.empty() ? OJson(nullptr) : OJson(r.remedy)},
                 {"rounds", r.rounds},
                 {"soak_s", or_null(r.soak_s)},
                 {"paths", paths},
                 {"device_s", or_null(r.device_s)},
                 {"quick", r.quick},
                 {"paths_not_applicable", not_applicable_json(r.paths_not_applicable)}};
}

std::optional<model::ProbeResult> probe_from_json(const nlohmann::json& j) {
    try {
        if (j.value("schema", "") != "peergate.probe/v1") {
            return std::nullopt;
        }
        model::ProbeResult r;
        r.outcome = parse_enum(j.at("result").get<std::string>(), kOutcomes)
                        .value_or(model::ProbeOutcome::inconclusive);
        r.reason = j.at("reason").get<std::string>();
        for (const auto& gpu : j.at("gpus")) {
            const auto index = util::json_integer<int>(gpu);
            if (!index) {
                throw util::JsonNumberError("\"gpus\" holds something other than GPU indices");
            }
            r.gpus.push_back(*index);
        }
        for (const auto& m : j.at("modes")) {
            if (auto mode = model::parse_probe_mode(m.get<std::string>())) {
                r.modes.push_back(*mode);
            }
        }
        if (!j.at("verify").is_null()) {
            r.verify = parse_enum(j.at("verify").get<std::string>(), kSites);
        }
        r.verify_note = j.at("verify_note").is_null() ? "" : j.at("verify_note").get<std::string>();
        for (const auto& c : j.at("cells")) {
            r.cells.push_back(cell_from(c));
        }
        r.remedy = j.at("remedy").is_null() ? "" : j.at("remedy").get<std::string>();
        // Both came later: a cached result written before them was one sweep.
        r.rounds = j.contains("rounds") ? util::json_integer_at<int>(j, "rounds") : 1;
        if (j.contains("soak_s") && !j.at("soak_s").is_null()) {
            r.soak_s = util::json_finite_at(j, "soak_s");
        }
        read_paths(j, r);
        read_not_applicable(j, r);
        for (const auto& p : j.at("pairs")) {
            r.pairs.push_back(pair_from(p, r));
        }
        return r;
    } catch (const nlohmann::json::exception&) {
        return std::nullopt;  // the one place nlohmann's exceptions are caught for this type
    }
}

}  // namespace peergate::report::probe
