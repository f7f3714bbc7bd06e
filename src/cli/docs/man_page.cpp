// SPDX-License-Identifier: Apache-2.0
#include "cli/docs/man_page.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <sstream>

namespace peergate::cli::docs {

namespace {

// An option name or command word in roff: its hyphens are minus signs, so a reader can
// search for and paste them.
std::string roff_word(const std::string& word) {
    std::string out;
    for (const char c : word) {
        out += c == '-' ? std::string("\\-") : roff_text(std::string(1, c));
    }
    return out;
}

std::string upper(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) {
        return static_cast<char>(std::toupper(c));
    });
    return text;
}

std::string option_heading(const OptionReference& option) {
    if (!option.positional.empty()) {
        return fmt::format(".TP\n.I {}\n", roff_word(option.positional));
    }
    std::vector<std::string> names;
    for (const auto& name : option.names) {
        names.push_back(fmt::format("\\fB{}\\fR", roff_word(name)));
    }
    std::string heading = fmt::format(".TP\n{}", fmt::join(names, ", "));
    if (!option.value.empty()) {
        heading += fmt::format(" \\fI{}\\fR", roff_word(option.value));
    }
    return heading + "\n";
}

std::string option_entry(const OptionReference& option) {
    std::string entry = option_heading(option) + roff_text(option.description) + "\n";
    if (!option.choices.empty()) {
        entry += fmt::format(".br\nOne of: {}.\n",
                             roff_word(fmt::format("{}", fmt::join(option.choices, ", "))));
    }
    if (!option.environment.empty()) {
        entry += fmt::format(".br\nAlso read from the environment variable \\fB{}\\fR.\n",
                             roff_word(option.environment));
    }
    return entry;
}

std::string options_section(const std::string& title, const std::vector<OptionReference>& options) {
    std::string section;
    for (const auto& option : options) {
        section += option_entry(option);
    }
    return section.empty() ? section : fmt::format(".SH {}\n{}", title, section);
}

std::string synopsis(const CommandReference& command) {
    std::string line = ".B peergate\n";
    if (!command.path.empty()) {
        line += "[\\fIglobal options\\fR]\n";
    }
    for (const auto& word : command.path) {
        line += fmt::format(".B {}\n", roff_word(word));
    }
    line +=
        command.commands.empty() ? "[\\fIoptions\\fR]\n" : "\\fIcommand\\fR [\\fIoptions\\fR]\n";
    for (const auto& option : command.options) {
        if (!option.positional.empty()) {
            const std::string word = fmt::format("\\fI{}\\fR", roff_word(option.positional));
            line += (option.required ? word : "[" + word + "]") + "\n";
        }
    }
    return ".SH SYNOPSIS\n" + line;
}

// The footer's lines ("Exit status: ...", examples) each as a paragraph of their own; the
// summary, which the NAME line already gives, only where there is no footer.
std::string description(const CommandReference& command) {
    std::string section = ".SH DESCRIPTION\n";
    std::istringstream lines(command.footer);
    bool any = false;
    for (std::string line; std::getline(lines, line);) {
        if (!line.empty()) {
            section += (any ? ".PP\n" : "") + roff_text(line) + "\n";
            any = true;
        }
    }
    return any ? section : section + roff_text(command.summary) + "\n";
}

std::string commands_section(const CommandReference& command) {
    std::string section;
    for (const auto& sub : command.commands) {
        section += fmt::format(".TP\n\\fB{}\\fR\n{}; see \\fB{}\\fR(1).\n",
                               roff_word(sub.path.back()),
                               roff_text(sub.summary),
                               roff_word(sub.page_name()));
    }
    return section.empty() ? section : ".SH COMMANDS\n" + section;
}

std::string see_also(const CommandReference& command, const CommandReference& program) {
    std::vector<std::string> pages;
    if (!command.path.empty()) {
        pages.push_back(fmt::format("\\fBpeergate\\fR(1)"));
    }
    for (const auto& sub : (command.path.empty() ? program : command).commands) {
        pages.push_back(fmt::format("\\fB{}\\fR(1)", roff_word(sub.page_name())));
    }
    return fmt::format(
        ".SH SEE ALSO\n{}\n.PP\nThe documentation in /usr/share/doc/peergate and "
        "the project's docs/ folder.\n",
        fmt::join(pages, ",\n"));
}

// The NAME line's text: the summary, without the "peergate: " the program's own starts with.
std::string one_line(const CommandReference& command) {
    const std::string prefix = command.page_name() + ": ";
    return command.summary.starts_with(prefix) ? command.summary.substr(prefix.size())
                                               : command.summary;
}

// The positional arguments (`wanted` true) or the named options, in --help's order.
std::vector<OptionReference> positionals(const std::vector<OptionReference>& options, bool wanted) {
    std::vector<OptionReference> kept;
    std::copy_if(options.begin(), options.end(), std::back_inserter(kept), [wanted](const auto& o) {
        return o.positional.empty() != wanted;
    });
    return kept;
}

std::vector<OptionReference> without_help(const std::vector<OptionReference>& options) {
    std::vector<OptionReference> kept;
    std::copy_if(options.begin(), options.end(), std::back_inserter(kept), [](const auto& o) {
        return std::find(o.names.begin(), o.names.end(), "--help") == o.names.end();
    });
    return kept;
}

}  // namespace

std::string roff_text(const std::string& text) {
    std::string out;
    bool line_start = true;
    for (const char c : text) {
        if (line_start && (c == '.' || c == '\'')) {
            out += "\\&";
        }
        out += c == '\\' ? std::string("\\e") : std::string(1, c);
        line_start = c == '\n';
    }
    return out;
}

std::string man_page(const CommandReference& command,
                     const CommandReference& program,
                     const std::string& version) {
    const std::string name = command.page_name();
    std::string page =
        fmt::format(".TH {} 1 \"\" \"{}\" \"peergate manual\"\n", upper(name), roff_text(version));
    page += fmt::format(".SH NAME\n{} \\- {}\n", roff_word(name), roff_text(one_line(command)));
    // Left-adjusted and unhyphenated: the help text holds paths and commands to copy.
    page += ".ad l\n.nh\n";
    page += synopsis(command) + description(command) + commands_section(command);
    page += options_section("ARGUMENTS", positionals(command.options, true));
    page += options_section("OPTIONS", positionals(command.options, false));
    if (!command.path.empty()) {
        page += options_section("GLOBAL OPTIONS", without_help(program.options));
    }
    return page + see_also(command, program);
}

}  // namespace peergate::cli::docs
