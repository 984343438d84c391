#!/usr/bin/env bash
# Style gates, run by ctest: clang-format (the repository's .clang-format) on every tracked C and
# C++ source, and clang-tidy (.clang-tidy: a few bug checks and the 60-line function limit) on
# omprof's own translation units. Usage: check_style.sh format|tidy BUILD_DIR
set -euo pipefail
what=${1:?format or tidy}
build=$(realpath "${2:-$(dirname "${BASH_SOURCE[0]}")/../build}")
cd "$(dirname "${BASH_SOURCE[0]}")/.."
sources() { git ls-files '*.cc' '*.h' '*.c' '*.cpp' '*.hpp' | grep -v '^tests/fuzz/regressions/'; }
case "$what" in
  format)
    sources | xargs clang-format --dry-run -Werror
    echo "style: clang-format ok"
    ;;
  tidy)
    # Translation units of the product (not tests, benchmarks or example programs).
    units=$(git ls-files '*.cc' | grep -E '^(collector|unwind|omp|ranks|regions|proto|viewer|launcher|mpi)/')
    # Each source alone, with its target's flags, also in a unity build (source_commands.py).
    python3 scripts/source_commands.py "$build" "$build/tidy"
    printf '%s\n' $units | xargs -P "$(nproc)" -n 4 clang-tidy -p "$build/tidy" --quiet 2>/dev/null
    echo "style: clang-tidy ok"
    ;;
  *) echo "usage: $0 format|tidy BUILD_DIR" >&2; exit 2 ;;
esac
