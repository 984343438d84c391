#!/usr/bin/env bash
# Sets everything up, profiles the bundled example OpenMP program and prints the report.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${OMPROF_BUILD_DIR:-$here/build}
bash "$here/scripts/setup.sh"
out="$build/demo-profiles"
mkdir -p "$out"
rm -f "$out"/*.omprof
"$build/bin/omprof" run -o "$out" -- "$build/bin/example_heat"
"$build/bin/omprof" report --flat --top 12 --tree --threads --parallel-regions --regions "$out"/*.omprof
