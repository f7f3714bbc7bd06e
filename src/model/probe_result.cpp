// SPDX-License-Identifier: Apache-2.0
#include "model/probe_result.hpp"

#include <algorithm>

namespace peergate::model {

std::string_view to_string(ProbeMode mode) {
    switch (mode) {
        case ProbeMode::serial:
            return "serial";
        case ProbeMode::bidirectional:
            return "bidirectional";
        case ProbeMode::concurrent:
            return "concurrent";
    }
    return "serial";
}

std::string_view to_string(CellStatus status) {
    switch (status) {
        case CellStatus::ok:
            return "ok";
        case CellStatus::dropped:
            return "dropped";
        case CellStatus::corrupted:
            return "corrupted";
        case CellStatus::error:
            return "error";
        case CellStatus::skipped:
            return "skipped";
        case CellStatus::flag_lost:
            return "flag_lost";
    }
    return "skipped";
}

std::string_view to_string(PairVerdict verdict) {
    switch (verdict) {
        case PairVerdict::ok:
            return "ok";
        case PairVerdict::data_lost:
            return "data_lost";
        case PairVerdict::error:
            return "error";
        case PairVerdict::skipped:
            return "skipped";
    }
    return "skipped";
}

std::string_view to_string(ProbeOutcome outcome) {
    switch (outcome) {
        case ProbeOutcome::pass:
            return "pass";
        case ProbeOutcome::fail:
            return "fail";
        case ProbeOutcome::inconclusive:
            return "inconclusive";
    }
    return "inconclusive";
}

std::string_view to_string(CopyPath path) {
    return path == CopyPath::direct ? "direct" : "staged";
}

std::string_view to_string(VerifySite site) {
    return site == VerifySite::device ? "device" : "host";
}

std::string_view to_string(ProbePath path) {
    switch (path) {
        case ProbePath::ce:
            return "ce";
        case ProbePath::sm_store:
            return "sm-store";
        case ProbePath::sm_load:
            return "sm-load";
        case ProbePath::handshake:
            return "handshake";
    }
    return "ce";
}

std::string_view to_string(NotApplicableWhy why) {
    switch (why) {
        case NotApplicableWhy::peer_access_refused:
            return "peer_access_refused";
    }
    return "peer_access_refused";
}

std::optional<NotApplicableWhy> parse_not_applicable_why(std::string_view text) {
    if (text == to_string(NotApplicableWhy::peer_access_refused)) {
        return NotApplicableWhy::peer_access_refused;
    }
    return std::nullopt;
}

std::string_view describe(NotApplicableWhy why) {
    switch (why) {
        case NotApplicableWhy::peer_access_refused:
            return "the driver refused peer access";
    }
    return "the driver refused peer access";
}

std::string_view handshake_outcome(CellStatus status) {
    switch (status) {
        case CellStatus::ok:
            return "intact";
        case CellStatus::dropped:
        case CellStatus::corrupted:
            return "data_lost";
        case CellStatus::flag_lost:
            return "flag_lost";
        case CellStatus::error:
        case CellStatus::skipped:
            return "";
    }
    return "";
}

bool lost_data(const ProbeCell& cell) {
    return cell.status == CellStatus::dropped || cell.status == CellStatus::corrupted ||
           cell.status == CellStatus::flag_lost;
}

std::string path_names(const std::vector<ProbePath>& paths) {
    std::string names;
    for (const auto path : paths) {
        names += (names.empty() ? "" : ", ") + std::string(to_string(path));
    }
    return names;
}

bool any_data_lost(const std::vector<ProbeCell>& cells) {
    return std::any_of(cells.begin(), cells.end(), [](const ProbeCell& c) {
        return c.wrong > 0 || c.dropped > 0 || c.flags_lost > 0;
    });
}

std::optional<ProbePath> parse_probe_path(std::string_view text) {
    for (const auto path : kAllProbePaths) {
        if (to_string(path) == text) {
            return path;
        }
    }
    return std::nullopt;
}

std::optional<ProbeMode> parse_probe_mode(std::string_view text) {
    for (const auto mode : {ProbeMode::serial, ProbeMode::bidirectional, ProbeMode::concurrent}) {
        if (to_string(mode) == text) {
            return mode;
        }
    }
    return std::nullopt;
}

}  // namespace peergate::model
