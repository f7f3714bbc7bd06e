# SPDX-License-Identifier: Apache-2.0
"""Finding libpeergate.so.N and calling its C API (include/peergate/peergate_c.h).

The C entry points write a JSON document into a caller-owned buffer and return a status, or
-n when the buffer is too small (n bytes are needed); they never throw, keep no global state,
and ctypes releases the GIL while they run, so threads may decide at once.
"""
from __future__ import annotations

import ctypes
import json
import os
import threading
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple

from ._errors import PeergateError

SONAME_MAJOR = 0  # libpeergate.so.0; tests/python checks it against the CMake SOVERSION
SONAME = f"libpeergate.so.{SONAME_MAJOR}"
_PACKAGE_DIR = Path(__file__).resolve().parent

_lock = threading.Lock()
_loaded: Optional[Tuple[ctypes.CDLL, str]] = None


def bundled_prefix() -> Path:
    """The install tree a wheel carries (setup.py puts it there)."""
    return _PACKAGE_DIR / "_prefix"


def _bundled_candidates() -> List[Path]:
    prefix = bundled_prefix()
    found = sorted(prefix.glob(f"lib*/**/{SONAME}")) if prefix.is_dir() else []
    return found + [_PACKAGE_DIR / SONAME]


def _try_load(path: str, tried: List[str]) -> Optional[ctypes.CDLL]:
    try:
        return ctypes.CDLL(path)
    except OSError as error:
        tried.append(f"{path}: {error}")
        return None


def _load() -> Tuple[ctypes.CDLL, str]:
    """PEERGATE_LIBRARY, else beside the package, else the system's libpeergate.so.N."""
    tried: List[str] = []
    explicit = os.environ.get("PEERGATE_LIBRARY")
    if explicit:
        # The caller named the library: another one would not be what they asked for.
        lib = _try_load(explicit, tried)
        if lib is None:
            raise PeergateError("cannot load the library PEERGATE_LIBRARY names: " + tried[0])
        return lib, explicit
    tried.append("PEERGATE_LIBRARY: not set")
    for candidate in _bundled_candidates():
        if candidate.is_file():
            lib = _try_load(str(candidate), tried)
            if lib is not None:
                return lib, str(candidate)
        else:
            tried.append(f"{candidate}: no such file")
    lib = _try_load(SONAME, tried)
    if lib is not None:
        return lib, SONAME
    raise PeergateError(f"{SONAME} was not found; looked at:\n  " + "\n  ".join(tried) +
                        "\nset PEERGATE_LIBRARY to its path, install the wheel that carries "
                        "it, or install the peergate package (docs/python.md)")


def _declare(lib: ctypes.CDLL) -> None:
    envp = ctypes.POINTER(ctypes.c_char_p)
    text, size, integer = ctypes.c_char_p, ctypes.c_size_t, ctypes.c_int
    signatures = {
        "peergate_gate_json": [envp, text, text, ctypes.c_void_p, size],
        "peergate_gate_place_json": [envp, text, integer, text, ctypes.c_void_p, size],
        "peergate_topology_json": [envp, ctypes.c_void_p, size],
        "peergate_place_json": [envp, text, integer, integer, text, ctypes.c_void_p, size],
    }
    for name, argtypes in signatures.items():
        function = getattr(lib, name)
        function.argtypes = argtypes
        function.restype = integer


def library() -> Tuple[ctypes.CDLL, str]:
    """The loaded library and where it was found (loaded once per process)."""
    global _loaded
    with _lock:
        if _loaded is None:
            lib, path = _load()
            _declare(lib)
            _loaded = (lib, path)
        return _loaded


def _encode(value: Optional[str]) -> Optional[bytes]:
    return None if value is None else value.encode()


def environment_block(env: Mapping[str, str]) -> Any:
    """A NULL-terminated array of b"NAME=value", as the C API takes an environment."""
    items = [f"{name}={value}".encode() for name, value in env.items()]
    return (ctypes.c_char_p * (len(items) + 1))(*items, None)


def call_json(name: str, *args: Any) -> Tuple[int, Dict[str, Any]]:
    """Calls entry point `name` (its arguments before out/out_size), growing the buffer until
    the document fits; returns the status and the parsed document."""
    lib, _ = library()
    function: Callable[..., int] = getattr(lib, name)
    converted = [_encode(a) if isinstance(a, str) or a is None else a for a in args]
    size = 1 << 16
    while True:
        out = ctypes.create_string_buffer(size)
        status = function(*converted, out, size)
        if status >= 0:
            return status, json.loads(out.value.decode())
        size = -status
