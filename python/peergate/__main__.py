# SPDX-License-Identifier: Apache-2.0
"""`python -m peergate ARGS`: the peergate command's `gate` (`peergate gate ARGS`), for quick
checks. The command is the one installed with the library in use (its prefix's bin/), else
the first `peergate` on PATH."""
from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import List, Optional

from ._errors import PeergateError
from ._library import bundled_prefix, library


def _prefix_of_library() -> Optional[Path]:
    try:
        path = library()[1]
    except PeergateError:
        return None
    lib = Path(path)
    if not lib.is_absolute():  # found by the dynamic loader: not a place to look beside
        return None
    for parent in lib.parents:  # <prefix>/lib, lib64, lib/x86_64-linux-gnu ...
        if parent.name.startswith("lib") and (parent.parent / "bin" / "peergate").is_file():
            return parent.parent
    return None


def find_command() -> List[str]:
    """The candidates, in order; the first that exists is run."""
    places = [bundled_prefix() / "bin" / "peergate"]
    prefix = _prefix_of_library()
    if prefix is not None:
        places.append(prefix / "bin" / "peergate")
    on_path = shutil.which("peergate")
    if on_path:
        places.append(Path(on_path))
    return [str(p) for p in places]


def main(argv: List[str]) -> int:
    for candidate in find_command():
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            os.execv(candidate, [candidate, "gate", *argv])
    print("python -m peergate: no peergate command found (looked beside the library and on "
          "PATH); peergate.gate() works without it", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
