#!/usr/bin/env python3
"""Validates a speedscope JSON file against the schema the speedscope npm package publishes
(dist/release/file-format-schema.json), fetched once from the npm registry and cached next to
this build's test output. Exit 0: valid; 1: invalid (the errors are printed); 77: cannot check
here (no python3-jsonschema, or the registry unreachable), with the reason on stderr.

Usage: speedscope_schema.py FILE.json [CACHE_DIR]"""
import io
import json
import os
import sys
import tarfile
import urllib.request

VERSION = "1.25.0"
URL = f"https://registry.npmjs.org/speedscope/-/speedscope-{VERSION}.tgz"
MEMBER = "package/dist/release/file-format-schema.json"


def schema(cache_dir):
    path = os.path.join(cache_dir, f"speedscope-{VERSION}-file-format-schema.json")
    if not os.path.exists(path):
        with urllib.request.urlopen(URL, timeout=30) as r:
            data = r.read()
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as t:
            text = t.extractfile(MEMBER).read()
        os.makedirs(cache_dir, exist_ok=True)
        with open(path + ".tmp", "wb") as f:
            f.write(text)
        os.replace(path + ".tmp", path)
    with open(path) as f:
        return json.load(f)


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    cache = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(sys.argv[1]), ".cache")
    try:
        import jsonschema
    except ImportError:
        print("python3-jsonschema is not installed (scripts/test.sh installs it)", file=sys.stderr)
        return 77
    try:
        s = schema(cache)
    except Exception as e:  # no network, registry down
        print(f"cannot fetch speedscope's schema from {URL}: {e}", file=sys.stderr)
        return 77
    with open(sys.argv[1]) as f:
        doc = json.load(f)
    errors = list(jsonschema.Draft7Validator(s).iter_errors(doc))
    for e in errors[:20]:
        print(f"{'/'.join(str(p) for p in e.absolute_path)}: {e.message}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
