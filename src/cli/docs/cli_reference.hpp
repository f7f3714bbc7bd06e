// SPDX-License-Identifier: Apache-2.0
// The command line as data: every command the program parses, its options and its help text,
// read from the CLI::App that describe_app() builds. The man pages and the bash completion are
// rendered from it (docs/packaging.md), so they can never document an option --help lacks.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace peergate::cli::docs {

struct OptionReference {
    std::vector<std::string> names;    // "-j", "--json"; empty for a positional
    std::string positional;            // "format" for a positional, else ""
    std::string value;                 // what it takes ("TEXT", "FILE"), "" for a flag
    std::vector<std::string> choices;  // the values an IsMember check allows, else none
    std::string description;
    std::string environment;  // the variable CLI11 reads it from, if any
    bool required = false;
};

struct CommandReference {
    std::vector<std::string> path;  // {} for peergate itself, {"fleet", "run"}
    std::string summary;            // the one line --help prints first
    std::string footer;             // the lines --help prints last
    std::vector<OptionReference> options;
    std::vector<CommandReference> commands;  // the visible subcommands, in --help's order

    std::string page_name() const;     // "peergate", "peergate-fleet-run"
    std::string command_line() const;  // "peergate", "peergate fleet run"
};

// The reference of `app` and of every visible subcommand under it (one in the empty group,
// as the gate's internal helper is, is left out, as --help leaves it out).
CommandReference reference_of(const CLI::App& app);

}  // namespace peergate::cli::docs
