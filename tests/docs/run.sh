#!/usr/bin/env bash
# docs.man_and_completion: the generated man pages (BUILD_DIR/cli-docs, docs/packaging.md)
# render with no warning from man(1), one exists for every command --help lists, and the
# generated bash completion completes commands, options, choices and machines in a real bash.
# Usage: run.sh BUILD_DIR. Exit 77 (skipped) without man(1).
set -euo pipefail
build=$1
docs=$build/cli-docs
peergate=$(find "$build" -path '*/bin/peergate' -type f -print -quit)
command -v man > /dev/null || { echo "man is not installed: skipped"; exit 77; }

# Every command in `peergate --help` (and every fleet subcommand) has its page.
commands=$("$peergate" --help | awk '/^Subcommands:/ {on = 1; next} on && !NF {exit} on {print $1}')
[ -n "$commands" ] || { echo "no command found in peergate --help"; exit 1; }
for command in $commands; do
  test -f "$docs/peergate-$command.1.gz" || { echo "no man page for $command"; exit 1; }
done
fleet=$("$peergate" fleet --help | awk '/^Subcommands:/ {on = 1; next} on && !NF {exit} on {print $1}')
for command in $fleet; do
  test -f "$docs/peergate-fleet-$command.1.gz" || { echo "no man page for fleet $command"; exit 1; }
done

# man's own checks: groff warnings (-ww) must be none, for every page.
for page in "$docs"/*.1.gz; do
  warnings=$(MANWIDTH=80 man --warnings=w -E UTF-8 -l "$page" 2>&1 > /dev/null)
  [ -z "$warnings" ] || { echo "$(basename "$page"): $warnings"; exit 1; }
done
MANWIDTH=80 man -E UTF-8 -l "$docs/peergate-doctor.1.gz" 2> /dev/null | grep -q -- '--kernel-log' ||
  { echo "peergate-doctor(1) does not show --kernel-log"; exit 1; }

# The completion in a real bash, with the build's peergate first on PATH (its machines lie in
# share/peergate/machines beside bin/, as in an install).
complete_line() {  # WORDS...: the completions of the last word
  PATH="$(dirname "$peergate"):$PATH" bash -c '
    source "$0"
    COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _peergate
    printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " "' "$docs/peergate.bash" "$@"
}
expect() {  # EXPECTED WORDS...
  local want=$1 got
  shift
  got=$(complete_line "$@")
  [ "$got" = "$want" ] || { echo "completing '$*': got '$got', want '$want'"; exit 1; }
}
expect "exec export " peergate ex
expect "dot " peergate export d
expect "--kernel-log " peergate doctor --kern
expect "--simulate " peergate doctor --simu     # a global option after the command
expect "bridged-a100-4x " peergate --simulate bridged
expect "health " peergate fleet he
expect "health " peergate --simulate dgx1-v100 fleet he  # a valued option is skipped
echo "docs: $(ls "$docs"/*.1.gz | wc -l) man pages without warnings; the completion completes"
