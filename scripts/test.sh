#!/usr/bin/env bash
# Sets everything up and runs every test (unit and integration) with ctest.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${OMPROF_BUILD_DIR:-$here/build}
bash "$here/scripts/setup.sh"
ctest --test-dir "$build" --output-on-failure -j2 "$@"
