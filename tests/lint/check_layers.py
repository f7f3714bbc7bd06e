#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Checks every quoted #include under src/ against the layer table.

Why: every layer has all of src/ on its include path, so a header-only include that
crosses the architecture (policy/ reaching into sources/host/) still compiles and links.
The layer table that cmake/Layers.cmake writes (one line per layer: NAME DIR DEP...)
says which folder belongs to which layer and which layers each one may use; this
script makes the build's claim true by failing on every include outside that closure.

A file belongs to the layer whose DIR is the longest prefix of its path under src/.
A quoted include is resolved as the compiler does: next to the including file, then
from src/, then from each --public directory (the public API and generated headers,
which every layer may include). System includes (<...>) are not checked.

Exit 0 clean; 1 crossings, unresolved includes, unowned files or stale known
crossings; 2 the table or an argument is wrong.
"""

import argparse
import os
import re
import sys

SOURCE_SUFFIXES = (".cpp", ".hpp", ".h")
QUOTED_INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')


class TableError(Exception):
    """The layer table cannot be used as it is."""


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--table", required=True, help="layers.txt written by CMake")
    parser.add_argument("--src", required=True, help="the folder the table's DIRs are under")
    parser.add_argument("--public", action="append", default=[],
                        help="an include folder every layer may use (repeatable)")
    parser.add_argument("--known", help="file of accepted crossings, one 'file:include' a line")
    return parser.parse_args(argv)


def read_table(path):
    """Returns {name: (dir, [deps], [denied])} from the table, checking that it is consistent.

    A field "!DIR" is no dependency: it says the layer may not include files under src/DIR even
    where its dependencies' closure reaches them (cli reaches sources/ through pipeline, and
    must call pipeline instead)."""
    layers = {}
    with open(path, encoding="utf-8") as table:
        for number, line in enumerate(table, 1):
            fields = line.split()
            if not fields or fields[0].startswith("#"):
                continue
            if len(fields) < 2:
                raise TableError(f"{path}:{number}: a layer needs NAME and DIR")
            name, folder, rest = fields[0], fields[1].strip("/"), fields[2:]
            if name in layers:
                raise TableError(f"{path}:{number}: layer {name} is declared twice")
            deps = [field for field in rest if not field.startswith("!")]
            denied = [field[1:].strip("/") for field in rest if field.startswith("!")]
            layers[name] = (folder, deps, denied)
    check_table(path, layers)
    return layers


def check_table(path, layers):
    folders = {}
    for name, (folder, deps, _) in layers.items():
        if folder in folders:
            raise TableError(f"{path}: layers {folders[folder]} and {name} share {folder}")
        folders[folder] = name
        for dep in deps:
            if dep not in layers:
                raise TableError(f"{path}: layer {name} depends on unknown layer {dep}")


def allowed_layers(layers):
    """Returns {name: set of layers it may include}: itself and its deps' closure."""
    allowed = {}
    for name in layers:
        reached, pending = set(), [name]
        while pending:
            layer = pending.pop()
            if layer not in reached:
                reached.add(layer)
                pending.extend(layers[layer][1])
        allowed[name] = reached
    return allowed


def owner_of(relative, folders):
    """Returns the layer whose folder is the longest prefix of relative, or None."""
    parts = relative.split("/")
    for length in range(len(parts) - 1, 0, -1):
        layer = folders.get("/".join(parts[:length]))
        if layer:
            return layer
    return None


def source_files(src):
    """Yields each checked file's path relative to src, with '/' separators, sorted."""
    found = []
    for root, dirs, files in os.walk(src):
        dirs.sort()
        for file_name in files:
            if file_name.endswith(SOURCE_SUFFIXES):
                path = os.path.join(root, file_name)
                found.append(os.path.relpath(path, src).replace(os.sep, "/"))
    return sorted(found)


def quoted_includes(path):
    """Yields (line number, included name) for each quoted #include in the file."""
    with open(path, encoding="utf-8", errors="replace") as source:
        for number, line in enumerate(source, 1):
            match = QUOTED_INCLUDE.match(line)
            if match:
                yield number, match.group(1)


def resolve(include, includer, src, public):
    """Returns ('src', path under src) or ('public', path), or None if no file matches."""
    beside = os.path.normpath(os.path.join(os.path.dirname(includer), include))
    if not beside.startswith("..") and os.path.isfile(os.path.join(src, beside)):
        return "src", beside.replace(os.sep, "/")
    if os.path.isfile(os.path.join(src, include)):
        return "src", os.path.normpath(include).replace(os.sep, "/")
    for folder in public:
        if os.path.isfile(os.path.join(folder, include)):
            return "public", include
    return None


def read_known(path):
    """Returns the set of accepted 'file:include' crossings (# starts a comment)."""
    if not path:
        return set()
    with open(path, encoding="utf-8") as known:
        lines = (line.split("#", 1)[0].strip() for line in known)
        return {line for line in lines if line}


class Checker:
    """Walks the tree once, collecting problems and counting what it saw."""

    def __init__(self, layers, src, public, known):
        self.layers = layers
        self.folders = {folder: name for name, (folder, _, _) in layers.items()}
        self.allowed = allowed_layers(layers)
        self.src, self.public, self.known = src, public, known
        self.label = os.path.basename(os.path.normpath(src))
        self.problems, self.crossings, self.known_seen = [], 0, set()
        self.files = self.includes = 0

    def check_tree(self):
        for relative in source_files(self.src):
            self.files += 1
            layer = owner_of(relative, self.folders)
            if layer is None:
                self.problems.append(f"{self.label}/{relative}: no layer owns this folder")
                continue
            self.check_file(relative, layer)
        for stale in sorted(self.known - self.known_seen):
            self.problems.append(f"{stale}: known crossing no longer occurs; remove its line")

    def check_file(self, relative, layer):
        where = f"{self.label}/{relative}"
        for number, include in quoted_includes(os.path.join(self.src, relative)):
            self.includes += 1
            resolved = resolve(include, relative, self.src, self.public)
            if resolved is None:
                self.problems.append(f"{where}:{number}: {include} resolves to no file")
            elif resolved[0] == "src":
                self.check_edge(where, number, layer, resolved[1])

    def check_edge(self, where, number, layer, target):
        target_layer = owner_of(target, self.folders)
        if target_layer is None:
            self.problems.append(f"{where}:{number}: {target} is in no layer")
        elif target_layer not in self.allowed[layer] or self.denied(layer, target):
            key = f"{where}:{target}"
            if key in self.known:
                self.known_seen.add(key)
                return
            self.crossings += 1
            self.problems.append(
                f"{where}:{number}: {layer} may not include {target} (layer {target_layer})")

    def denied(self, layer, target):
        return any(target == folder or target.startswith(folder + "/")
                   for folder in self.layers[layer][2])

    def summary(self):
        accepted = f", {len(self.known_seen)} known" if self.known else ""
        return (f"check_layers: {self.files} files, {self.includes} includes, "
                f"{self.crossings} crossings{accepted}")


def main(argv):
    args = parse_args(argv)
    try:
        layers = read_table(args.table)
        known = read_known(args.known)
    except (OSError, TableError) as error:
        print(f"check_layers: {error}", file=sys.stderr)
        return 2
    if not os.path.isdir(args.src):
        print(f"check_layers: {args.src} is not a folder", file=sys.stderr)
        return 2
    checker = Checker(layers, args.src, args.public, known)
    checker.check_tree()
    for problem in checker.problems:
        print(problem)
    print(checker.summary())
    return 1 if checker.problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
