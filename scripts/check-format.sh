#!/usr/bin/env bash
# Checks that every tracked C++ source follows .clang-format. Usage: check-format.sh [CLANG_FORMAT]
# Exit 0 clean; 1 some file differs (each is named, with the start of its diff); 77 skipped:
# formatting differs between clang-format versions, so only 14, the version .clang-format is
# written for (Debian 12's), judges, and only in a git checkout (the tracked files).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
tool="${1:-clang-format}"
if ! version="$("$tool" --version 2>/dev/null)"; then
    echo "check-format: $tool not found; skipped"
    exit 77
fi
if ! grep -q 'version 14\.' <<<"$version"; then
    echo "check-format: $version is not clang-format 14; skipped"
    exit 77
fi
if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    echo "check-format: not a git checkout; skipped"
    exit 77
fi
mapfile -d '' files < <(git ls-files -z -- 'src/*.cpp' 'src/*.hpp' 'src/*.h' 'include/*.h' \
                                       'tests/*.cpp' 'tests/*.hpp' 'bench/*.cpp' 'fuzz/*.cpp')
# One clang-format per batch of files, one batch per CPU (a process per file spent most of
# its 40 s starting processes); --dry-run --Werror names each place a file differs.
report=$(mktemp)
trap 'rm -f "$report"' EXIT
printf '%s\0' "${files[@]}" |
    xargs -0 -r -n 64 -P "$(nproc)" "$tool" --style=file --dry-run --Werror >"$report" 2>&1
batches=$?
mapfile -t differing < <(sed -n 's/^\(.*\):[0-9]*:[0-9]*: error: code should be clang-formatted.*/\1/p' \
                             "$report" | sort -u)
status=0
for file in "${differing[@]}"; do
    echo "check-format: $file is not formatted:"
    "$tool" --style=file "$file" | diff -u --label "$file" --label "$file (clang-format)" "$file" - | head -n 20
    status=1
done
if [ "$batches" -ne 0 ] && [ "$status" -eq 0 ]; then
    echo "check-format: $tool failed:"
    head -n 20 "$report"
    status=1
fi
echo "check-format: ${#files[@]} files checked with $version"
exit "$status"
