// SPDX-License-Identifier: Apache-2.0
// The script holds the command line as shell `case` tables, one function per question the
// completer asks (which subcommands, which options, does this option take a value, which
// values), and one driver that walks the words typed so far. Every word in the tables comes
// from the program's own parser, and is made of [A-Za-z0-9._-], checked here, so nothing needs
// quoting in the script.
#include "cli/docs/bash_completion.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <stdexcept>

namespace peergate::cli::docs {

namespace {

std::string shell_word(const std::string& word) {
    const bool plain = !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '_' || c == '.';
    });
    if (!plain) {
        throw std::invalid_argument("not a plain word for the completion script: " + word);
    }
    return word;
}

std::string words(const std::vector<std::string>& list) {
    std::vector<std::string> checked;
    std::transform(list.begin(), list.end(), std::back_inserter(checked), shell_word);
    return fmt::format("{}", fmt::join(checked, " "));
}

std::string path_key(const CommandReference& command) {
    return fmt::format("{}", fmt::join(command.path, " "));
}

// Calls `visit` on `command` and every command under it.
template <typename Visit>
void each_command(const CommandReference& command, const Visit& visit) {
    visit(command);
    for (const auto& sub : command.commands) {
        each_command(sub, visit);
    }
}

struct Tables {
    std::string subcommands, options, valued, choices, argument_choices;
};

void add_command(const CommandReference& command, Tables& tables) {
    const std::string key = path_key(command);
    std::vector<std::string> subs, names;
    for (const auto& sub : command.commands) {
        subs.push_back(sub.path.back());
    }
    for (const auto& option : command.options) {
        names.insert(names.end(), option.names.begin(), option.names.end());
        if (!option.positional.empty() && !option.choices.empty()) {
            tables.argument_choices +=
                fmt::format("    '{}') echo {} ;;\n", key, words(option.choices));
        }
        if (option.names.empty() || option.value.empty()) {
            continue;
        }
        for (const auto& name : option.names) {
            tables.valued += fmt::format("    '{}:{}') return 0 ;;\n", key, shell_word(name));
            if (!option.choices.empty()) {
                tables.choices +=
                    fmt::format("    '{}:{}') echo {} ;;\n", key, name, words(option.choices));
            }
        }
    }
    if (!subs.empty()) {
        tables.subcommands += fmt::format("    '{}') echo {} ;;\n", key, words(subs));
    }
    tables.options += fmt::format("    '{}') echo {} ;;\n", key, words(names));
}

// A shell function answering from a `case` on `subject`, with `otherwise` for the rest.
std::string table(const std::string& function,
                  const std::string& subject,
                  const std::string& cases,
                  const std::string& otherwise) {
    return fmt::format("{}() {{\n  case \"{}\" in\n{}    *) {} ;;\n  esac\n}}\n\n",
                       function,
                       subject,
                       cases,
                       otherwise);
}

// The driver. A word that is a subcommand of the path so far extends the path; an option that
// takes a value swallows the next word; after "--" the words are another program's.
constexpr const char* kDriver = R"SH(_peergate_machines() {
  local bin dir
  bin=$(command -v peergate) || return 0
  dir=${bin%/*/*}/share/peergate/machines
  [ -d "$dir" ] || return 0
  local file
  for file in "$dir"/*.json; do
    [ -e "$file" ] && file=${file##*/} && echo "${file%.json}"
  done
}

_peergate() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
  local path="" i word sub skip=0
  for ((i = 1; i < COMP_CWORD; i++)); do
    word=${COMP_WORDS[i]}
    if ((skip)); then
      skip=0
      continue
    fi
    case $word in
      --) compopt -o default 2>/dev/null; COMPREPLY=(); return 0 ;;
      -*) _peergate_valued "$path" "$word" && skip=1 ;;
      *)
        for sub in $(_peergate_subcommands "$path"); do
          if [ "$sub" = "$word" ]; then
            path=${path:+$path }$word
            break
          fi
        done
        ;;
    esac
  done
  if [[ $prev == -* ]] && _peergate_valued "$path" "$prev"; then
    local values
    values=$(_peergate_choices "$path" "$prev")
    [ "$prev" = --simulate ] && values="$(_peergate_machines)"
    COMPREPLY=($(compgen -W "$values" -- "$cur"))
    if [ "$prev" = --simulate ] || [ -z "$values" ]; then
      compopt -o filenames 2>/dev/null
      COMPREPLY+=($(compgen -f -- "$cur"))
    fi
    return 0
  fi
  if [[ $cur == -* ]]; then
    local options
    options=$(_peergate_options "$path")
    [ -n "$path" ] && options="$options $(_peergate_options "")"
    COMPREPLY=($(compgen -W "$options" -- "$cur"))
    return 0
  fi
  COMPREPLY=($(compgen -W "$(_peergate_subcommands "$path") $(_peergate_argument_choices "$path")" -- "$cur"))
  if [ ${#COMPREPLY[@]} -eq 0 ]; then
    compopt -o filenames 2>/dev/null
    COMPREPLY=($(compgen -f -- "$cur"))
  fi
  return 0
}
complete -F _peergate peergate
)SH";

}  // namespace

std::string bash_completion(const CommandReference& program) {
    Tables tables;
    each_command(program,
                 [&tables](const CommandReference& command) { add_command(command, tables); });
    // Under a command, an option the table lacks may be a global one: ask again for the root.
    const std::string global = "[ -n \"$1\" ] && \"$FUNCNAME\" \"\" \"$2\"";
    return "# bash completion for peergate(1), generated from its --help by peergate-cli-docs\n"
           "# (docs/packaging.md). Do not edit: rebuild.\n\n" +
           table("_peergate_subcommands", "$1", tables.subcommands, "return 0") +
           table("_peergate_options", "$1", tables.options, "return 0") +
           table("_peergate_valued", "$1:$2", tables.valued, global) +
           table("_peergate_choices", "$1:$2", tables.choices, global) +
           table("_peergate_argument_choices", "$1", tables.argument_choices, "return 0") + kDriver;
}

}  // namespace peergate::cli::docs
