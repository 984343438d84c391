#!/usr/bin/env bash
# Do the views' error bars mean what they say? Runs tests/programs/periodic (phase_a and
# phase_b, whose CPU time the program measures itself) N times per clock, and counts how often
# phase_a's total_s +- 2 total_err_s (the flat view's 95% interval) covers what the program
# measured, and the 1-standard-error coverage (expected about 68%). Not a test.
#   bash bench/error_bars.sh [runs]     (default 20)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${OMPROF_BUILD_DIR:-$here/build}
runs=${1:-20}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "machine: $(nproc) cores, $(uname -r); $runs runs per clock; periodic 7 ms steps, 1.5 s"
for clock in task cpu; do
  : >"$out/rows"
  for ((i = 0; i < runs; i++)); do
    rm -rf "$out/p"
    truth=$("$build/bin/omprof" run -o "$out/p" --clock "$clock" --rate 200 -- \
      "$build/tests/bin/periodic" 7 214 2>/dev/null)
    "$build/bin/omprof" report --flat --csv "$out/p" |
      awk -F, -v t="$truth" 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i }
        $col["function"] ~ /^phase_a/ { split(t, a, /[= ]/); print a[2], $col["total_s"], $col["total_err_s"] }' \
        >>"$out/rows"
  done
  awk -v clock="$clock" '{ d = $2 - $1; if (d < 0) d = -d; n++; if (d <= 2 * $3) c2++; if (d <= $3) c1++; err += $3; dev += d; dev2 += d * d; truth += $1 }
    END { printf "%s clock: 2 standard errors cover the truth in %d of %d runs, 1 in %d of %d; mean error bar %.4f s, rms error %.4f s, mean |error| %.4f s (truth %.3f s)\n", clock, c2, n, c1, n, err / n, sqrt(dev2 / n), dev / n, truth / n }' "$out/rows"
done
