#!/usr/bin/env bash
# Golden data for the viewer: small profiles checked in under tests/data/, and their views.
# `golden.sh check BUILD` (ctest golden.views) prints each view again and diffs it with the
# checked-in one, so any change to what a view shows is seen in review.
# `golden.sh regenerate BUILD` records new profiles and rewrites the expected views:
#   - regions_app.omprof: tests/programs/regions_app (OpenMP with explicit regions, 2 threads);
#   - ranks/: a 2-rank MPI job of tests/programs/mpi_ranks (2 OpenMP threads a rank, explicit
#     regions on even ranks, MPI_Allreduce), when MPI is built;
# both symbolized in the run so that the files are readable anywhere.
# Regenerate only when a view is meant to change. `golden.sh views BUILD` rewrites the expected
# views of the checked-in profiles alone (a reader's change: the profiles also keep the reader
# honest about older files).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
mode=${1:?check or regenerate}
build=$(realpath "${2:-$here/build}")
data=$here/tests/data
omprof=${OMPROF_TEST_COMMAND:-$build/bin/omprof}  # scripts/test.sh: an AddressSanitizer build's
# INPUT:VIEW, where VIEW is a report option (its file: VIEW.csv), OPTION=ARGUMENT (its file:
# OPTION-ARGUMENT.csv), or "text": the default text report (header, flat top 20, call tree:
# text.txt). The views of ranks/ are ranks-VIEW.csv and ranks-text.txt.
views=(regions_app.omprof:{flat,tree,threads,states,parallel-regions,regions,lines,callees=solve,callers=spin_for,text}
  ranks:{ranks,regions,mpi,flat,threads,states,parallel-regions,text})

# Run in tests/data, so that the paths the views print do not depend on the checkout.
print_view() {  # INPUT:VIEW, with no limits, so that the CSV's completeness is checked too
  local input=${1%%:*} view=${1#*:}
  local option=${view%%=*}
  cd "$data"
  if [[ $view == text ]]; then
    NO_COLOR=1 "$omprof" report --width 0 "$input"
  elif [[ $view == *=* ]]; then
    "$omprof" report --csv "--$option" "${view#*=}" "$input"
  else
    "$omprof" report --csv "--$option" "$input"
  fi
}
file_of() {  # INPUT:VIEW -> its expected output
  local input=${1%%:*} view=${1#*:}
  local ext=csv
  [[ $view == text ]] && ext=txt
  if [[ $input == ranks ]]; then
    echo "$data/ranks-${view/=/-}.$ext"
  else
    echo "$data/${view/=/-}.$ext"
  fi
}
write_views() {
  for v in "${views[@]}"; do
    [[ -e $data/${v%%:*} ]] && print_view "$v" >"$(file_of "$v")"
  done
  return 0
}

case "$mode" in
  regenerate)
    tmp=$(mktemp -d)
    OMP_NUM_THREADS=2 "$omprof" run --symbolize --rate 500 -o "$tmp" -- \
      "$build/tests/bin/regions_app" >/dev/null
    mkdir -p "$data"
    cp "$tmp"/regions_app.*.omprof "$data/regions_app.omprof"
    if [[ -x $build/tests/bin/mpi_ranks_gcc ]]; then
      rm -rf "$data/ranks" && mkdir -p "$data/ranks"
      OMP_NUM_THREADS=2 mpirun -np 2 --oversubscribe --allow-run-as-root "$omprof" run \
        --symbolize --rate 500 -o "$tmp/ranks" -- "$build/tests/bin/mpi_ranks_gcc" 40 4 2 >/dev/null
      # Fixed names: the pids in the names would change the text report's file column.
      cp "$tmp"/ranks/*.rank0000.omprof "$data/ranks/mpi_ranks.rank0000.omprof"
      cp "$tmp"/ranks/*.rank0001.omprof "$data/ranks/mpi_ranks.rank0001.omprof"
    fi
    rm -rf "$tmp"
    write_views
    echo "golden: regenerated $data"
    ;;
  views)
    write_views
    echo "golden: rewrote the views of the profiles in $data"
    ;;
  check)
    status=0
    for v in "${views[@]}"; do
      if ! diff -u "$(file_of "$v")" <(print_view "$v"); then
        echo "golden: the ${v#*:} view of tests/data/${v%%:*} changed" >&2
        status=1
      fi
    done
    [ $status -eq 0 ] && echo "golden: ${#views[@]} views unchanged"
    exit $status
    ;;
  *)
    echo "usage: $0 check|regenerate|views [BUILD_DIR]" >&2
    exit 2
    ;;
esac
