#!/usr/bin/env python3
"""Lists the public declarations of the given modules that have no doc comment.

Reads the symbol graphs `swift package dump-symbol-graph` writes (one directory) and prints
`path (kind) file:line` for each public or open symbol of MODULE (and of its extensions of other
modules' types) that has no documentation comment of its own and does not implement a protocol
requirement or override a documented declaration (those show the documentation they implement,
as DocC does). Exits 1 when any is found.

    tools/docs/undocumented.py SYMBOLGRAPH_DIR Atoll AtollSync
"""
import json
import os
import sys


def main() -> int:
    if len(sys.argv) < 3:
        print("usage: undocumented.py SYMBOLGRAPH_DIR MODULE...", file=sys.stderr)
        return 64
    directory, modules = sys.argv[1], sys.argv[2:]
    missing = []
    for module in modules:
        files = [f for f in os.listdir(directory)
                 if f == f"{module}.symbols.json" or f.startswith(f"{module}@")]
        if not files:
            print(f"undocumented.py: no symbol graph for {module} in {directory}", file=sys.stderr)
            return 66
        for name in sorted(files):
            with open(os.path.join(directory, name), encoding="utf-8") as handle:
                graph = json.load(handle)
            inherits = set()
            for relation in graph.get("relationships", []):
                if relation.get("kind") in ("defaultImplementationOf", "requirementOf", "overrides"):
                    inherits.add(relation["source"])
            for symbol in graph.get("symbols", []):
                if symbol.get("accessLevel") not in ("public", "open"):
                    continue
                if symbol.get("docComment", {}).get("lines"):
                    continue
                identifier = symbol["identifier"]["precise"]
                if identifier in inherits:
                    continue
                path = ".".join(symbol.get("pathComponents", []))
                # Members synthesized by the compiler or inherited from a protocol extension
                # have no source location of this module.
                location = symbol.get("location")
                if location is None:
                    continue
                uri = location.get("uri", "")
                line = location.get("position", {}).get("line", 0) + 1
                kind = symbol.get("kind", {}).get("displayName", "?")
                missing.append(f"{module}: {path} ({kind}) {os.path.relpath(uri.removeprefix('file://'))}:{line}")
    for entry in sorted(set(missing)):
        print(entry)
    if missing:
        print(f"{len(set(missing))} public declarations without a doc comment", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
