#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Runs check_layers.py on the fixture trees and checks what it says.

Why: a lint that cannot fail proves nothing. Each case runs the checker on a small tree
under fixtures/ and demands its exit status, the lines it must print and the lines it
must not: the clean tree passes, the crossing tree names each crossing (including one
into a nested layer, found by the longest folder prefix), the unresolved include and the
unowned folder, and the known-crossings list both accepts a crossing and fails on a
stale entry.

Usage: selftest_layers.py CHECK_LAYERS_PY FIXTURES_DIR. Exit 0 all cases pass, 1 not.
"""

import os
import subprocess
import sys

TO_SOURCES = "src/policy/bad.cpp:5: policy may not include sources/host/x.hpp (layer sources_host)"
TO_GATE = "src/policy/bad.cpp:3: policy may not include policy/gate/veto.hpp (layer policy_gate)"
MISSING = "src/model/value.hpp:4: util/missing.hpp resolves to no file"
UNOWNED = "src/stray/lost.hpp: no layer owns this folder"
DENIED = "src/front/cmd.cpp:3: front may not include sources/host/x.hpp (layer sources_host)"
STALE = "src/policy/bad.cpp:sources/host/x.hpp: known crossing no longer occurs"

# (name, tree, use known_crossings.txt, exit status, lines it must print, lines it must not)
CASES = [
    ("clean tree passes", "clean", False, 0,
     ["check_layers: 9 files, 12 includes, 0 crossings"], [": "]),
    ("crossings are named", "crossing", False, 1,
     [TO_SOURCES, TO_GATE, DENIED, MISSING, UNOWNED, "3 crossings"], []),
    ("a known crossing is accepted", "crossing", True, 1,
     [TO_GATE, DENIED, MISSING, "2 crossings, 1 known"], [TO_SOURCES]),
    ("a stale known crossing fails", "clean", True, 1,
     [STALE, "0 crossings, 0 known"], []),
]


def run_case(check, fixtures, case):
    """Returns the list of ways the case's run differs from what it demands."""
    _, tree, with_known, status, present, absent = case
    command = [sys.executable, check, "--table", os.path.join(fixtures, "layers.txt"),
               "--src", os.path.join(fixtures, tree, "src"),
               "--public", os.path.join(fixtures, tree, "include")]
    if with_known:
        command += ["--known", os.path.join(fixtures, "known_crossings.txt")]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    output = result.stdout + result.stderr
    failures = [f"exit {result.returncode}, wanted {status}"] if result.returncode != status else []
    failures += [f"missing: {line}" for line in present if line not in output]
    failures += [f"unwanted: {line}" for line in absent if line in problem_lines(output)]
    return failures, output


def problem_lines(output):
    """The output without its summary line, so an absent-line check ignores the summary."""
    return "\n".join(line for line in output.splitlines() if not line.startswith("check_layers:"))


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    check, fixtures = argv
    failed = 0
    for case in CASES:
        failures, output = run_case(check, fixtures, case)
        print(f"{'FAIL' if failures else 'ok'}: {case[0]}")
        if failures:
            failed += 1
            print("\n".join(f"  {failure}" for failure in failures))
            print("  output:\n" + "\n".join(f"    {line}" for line in output.splitlines()))
    print(f"selftest_layers: {len(CASES) - failed} of {len(CASES)} cases pass")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
