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
status=0
checked=0
while IFS= read -r -d '' file; do
    checked=$((checked + 1))
    if ! "$tool" --style=file "$file" | diff -u --label "$file" --label "$file (clang-format)" "$file" - >/tmp/check-format.$$; then
        echo "check-format: $file is not formatted:"
        head -n 20 /tmp/check-format.$$
        status=1
    fi
done < <(git ls-files -z -- 'src/*.cpp' 'src/*.hpp' 'src/*.h' 'include/*.h' 'tests/*.cpp' \
                             'tests/*.hpp' 'bench/*.cpp' 'fuzz/*.cpp')
rm -f /tmp/check-format.$$
echo "check-format: $checked files checked with $version"
exit "$status"
