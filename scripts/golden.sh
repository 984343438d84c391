#!/usr/bin/env bash
# Golden data for the viewer: a small profile checked in under tests/data/, and every CSV view
# of it. `golden.sh check BUILD` (ctest golden.views) prints each view again and diffs it with
# the checked-in one, so any change to what a view shows is seen in review.
# `golden.sh regenerate BUILD` records a new profile (tests/programs/regions_app: OpenMP with
# explicit regions, 2 threads, symbolized in the run so the file is readable anywhere) and
# rewrites the expected views. Regenerate only when a view is meant to change. `golden.sh views
# BUILD` rewrites the expected views of the checked-in profile alone (a reader's change: the
# profile, format 1.5, also keeps the reader honest about older files).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
mode=${1:?check or regenerate}
build=$(realpath "${2:-$here/build}")
data=$here/tests/data
omprof=$build/bin/omprof
# A view, or VIEW=ARGUMENT (its file: VIEW-ARGUMENT.csv).
views=(flat tree threads states parallel-regions regions lines callees=solve callers=spin_for)

print_view() {  # VIEW PROFILE: with no limits, so that the CSV's completeness is checked too
  local view=${1%%=*}
  if [[ $1 == *=* ]]; then
    "$omprof" report --csv "--$view" "${1#*=}" "$2"
  else
    "$omprof" report --csv "--$view" "$2"
  fi
}
file_of() { echo "$data/${1/=/-}.csv"; }

case "$mode" in
  regenerate)
    tmp=$(mktemp -d)
    OMP_NUM_THREADS=2 "$omprof" run --symbolize --rate 500 -o "$tmp" -- \
      "$build/tests/bin/regions_app" >/dev/null
    mkdir -p "$data"
    cp "$tmp"/regions_app.*.omprof "$data/regions_app.omprof"
    rm -rf "$tmp"
    for v in "${views[@]}"; do print_view "$v" "$data/regions_app.omprof" >"$(file_of "$v")"; done
    echo "golden: regenerated $data"
    ;;
  views)
    for v in "${views[@]}"; do print_view "$v" "$data/regions_app.omprof" >"$(file_of "$v")"; done
    echo "golden: rewrote the views of $data/regions_app.omprof"
    ;;
  check)
    status=0
    for v in "${views[@]}"; do
      if ! diff -u "$(file_of "$v")" <(print_view "$v" "$data/regions_app.omprof"); then
        echo "golden: the $v view of tests/data/regions_app.omprof changed" >&2
        status=1
      fi
    done
    [ $status -eq 0 ] && echo "golden: ${#views[@]} views unchanged"
    exit $status
    ;;
  *) echo "usage: $0 check|regenerate|views [BUILD_DIR]" >&2; exit 2 ;;
esac
