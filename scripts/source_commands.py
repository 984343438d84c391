#!/usr/bin/env python3
"""Writes a compilation database with one entry per source file, for clang-tidy, from a build's
compile_commands.json, whose unity-build entries name CMake's generated unity files instead:
each source a unity file includes gets that unity file's command, compiling the source alone.

    source_commands.py BUILD_DIR OUT_DIR   (writes OUT_DIR/compile_commands.json)
"""
import json
import os
import re
import sys

INCLUDE = re.compile(r'^#include "(.+)"$')


def sources_of(unity_file):
    with open(unity_file) as f:
        return [m.group(1) for m in map(INCLUDE.match, f.read().splitlines()) if m]


def per_source(entry):
    if "/Unity/unity_" not in entry["file"]:
        return [entry]
    unity = entry["file"]
    entries = []
    for source in sources_of(unity):
        e = dict(entry, file=source)
        if "command" in e:
            e["command"] = e["command"].replace(unity, source)
        else:
            e["arguments"] = [source if a == unity else a for a in e["arguments"]]
        entries.append(e)
    return entries


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: source_commands.py BUILD_DIR OUT_DIR")
    build, out = sys.argv[1:]
    try:
        with open(os.path.join(build, "compile_commands.json")) as f:
            database = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"source_commands: cannot read {build}/compile_commands.json: {e}")
    entries = [s for e in database for s in per_source(e)]
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "compile_commands.json"), "w") as f:
        json.dump(entries, f, indent=1)


if __name__ == "__main__":
    main()
