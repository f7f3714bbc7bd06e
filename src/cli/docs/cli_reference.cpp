// SPDX-License-Identifier: Apache-2.0
#include "cli/docs/cli_reference.hpp"

#include <fmt/format.h>

namespace peergate::cli::docs {

namespace {

// "TEXT:{prometheus,nfd,gres}" is how CLI11 names a value an IsMember check constrains.
std::vector<std::string> choices_in(const std::string& type_name) {
    const auto open = type_name.find('{');
    const auto close = type_name.rfind('}');
    std::vector<std::string> choices;
    if (open == std::string::npos || close == std::string::npos || close < open) {
        return choices;
    }
    std::string current;
    for (const char c : type_name.substr(open + 1, close - open - 1)) {
        if (c == ',') {
            choices.push_back(current);
            current.clear();
        } else if (c != ' ') {
            current += c;
        }
    }
    if (!current.empty()) {
        choices.push_back(current);
    }
    return choices;
}

OptionReference reference_of(const CLI::Option& option) {
    OptionReference reference;
    for (const auto& name : option.get_snames()) {
        reference.names.push_back("-" + name);
    }
    for (const auto& name : option.get_lnames()) {
        reference.names.push_back("--" + name);
    }
    if (reference.names.empty()) {
        reference.positional = option.get_name(true);
    }
    if (option.get_items_expected_max() > 0) {
        reference.choices = choices_in(option.get_type_name());
        const auto type = option.get_type_name();
        reference.value = reference.choices.empty() ? type : type.substr(0, type.find(':'));
    }
    reference.description = option.get_description();
    reference.environment = option.get_envname();
    reference.required = option.get_required();
    return reference;
}

CommandReference reference_under(const CLI::App& app, std::vector<std::string> path) {
    CommandReference reference;
    reference.path = std::move(path);
    reference.summary = app.get_description();
    reference.footer = app.get_footer();
    for (const CLI::Option* option : app.get_options()) {
        reference.options.push_back(reference_of(*option));
    }
    for (const CLI::App* sub :
         app.get_subcommands([](const CLI::App* a) { return !a->get_group().empty(); })) {
        auto sub_path = reference.path;
        sub_path.push_back(sub->get_name());
        reference.commands.push_back(reference_under(*sub, std::move(sub_path)));
    }
    return reference;
}

}  // namespace

std::string CommandReference::page_name() const {
    return path.empty() ? "peergate" : fmt::format("peergate-{}", fmt::join(path, "-"));
}

std::string CommandReference::command_line() const {
    return path.empty() ? "peergate" : fmt::format("peergate {}", fmt::join(path, " "));
}

CommandReference reference_of(const CLI::App& app) {
    return reference_under(app, {});
}

}  // namespace peergate::cli::docs
