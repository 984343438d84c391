#!/usr/bin/env bash
# Checks the dependency rules of docs/architecture.md from the #include lines, in the
# signal-handler folder calls that are not async-signal-safe, and the size of every file. Prints each violation; exit 1 if
# any. Run by ctest (layout.dependencies).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
status=0
unsafe='malloc\(|calloc\(|realloc\(|free\(|printf|fopen|std::(string|vector|map|mutex|cout|cerr)|lock_guard|dlsym\(|throw |operator new'
fail() { echo "layout: $*"; status=1; }

# 1. The handler includes only the handler, the state codes, and these system headers.
allowed_system='atomic|cstddef|cstdint|ctime|cstring|new|errno\.h|signal\.h|link\.h|dlfcn\.h|pthread\.h|sys/resource\.h|sys/stat\.h|sys/types\.h|time\.h|ucontext\.h|unistd\.h|linux/perf_event\.h|sys/ioctl\.h|libunwind\.h|omp-tools\.h'
for f in collector/handler/*; do
  while IFS= read -r line; do
    inc=${line#*[<\"]}
    inc=${inc%%[>\"]*}
    case "$line" in
      *'"collector/handler/'* | *'"proto/state_codes.h"'* | *'"proto/journal.h"'* | *'"proto/timeline.h"'*) ;;
      *'"'*) fail "$f includes $inc: the handler may include only collector/handler/, proto/state_codes.h, proto/journal.h and proto/timeline.h (plain data and constexpr rules)" ;;
      *) [[ $inc =~ ^($allowed_system)$ ]] || fail "$f includes <$inc>, not on the handler's list" ;;
    esac
  done < <(grep -E '^#include' "$f")
  # Calls that allocate, lock, print or look symbols up, unless the line says it runs in
  # ordinary context.
  hits=$(grep -nE "$unsafe" "$f" | grep -v '// ordinary context' | grep -vE '^[0-9]+:\s*//')
  [ -n "$hits" ] && fail "$(sed "s|^|$f:|; s|$|: not async-signal-safe|" <<<"$hits")"
done

# rule EXTENSIONS PATTERN EXCEPT MESSAGE FOLDERS...: every line of the folders' files (git
# ls-files) that matches PATTERN (grep -E) and, if given, not EXCEPT, is reported with MESSAGE.
# One grep per rule: a grep per file took 14-28 s of the CI's test run.
rule() {
  local ext=$1 pattern=$2 except=$3 message=$4
  shift 4
  local files hits
  mapfile -t files < <(git ls-files "$@" | grep -E "\.($ext)$")
  [ ${#files[@]} -eq 0 ] && return
  hits=$(grep -nE "$pattern" "${files[@]}" /dev/null)
  [ -n "$except" ] && hits=$(grep -vE "$except" <<<"$hits")
  [ -z "$hits" ] && return
  sed -E "s|^([^:]+:[0-9]+):(.*)|layout: \1: \2: $message|" <<<"$hits"
  status=1
}

# 2. Offline code never includes the collector.
rule 'cc|h' '^#include "collector/' '' 'offline code includes the collector' \
  launcher viewer omp ranks regions proto unwind

# 3. Pure libraries (format, regions) include no other component.
rule 'cc|h' '^#include "(viewer|omp|unwind|collector)/' '' \
  'a pure library includes another component' proto regions
# 4. Pure libraries (omp/ and ranks/, besides the two above) include only pure libraries and
#    the format's headers: no collector, viewer, launcher, unwinder or MPI code.
rule 'cc|h' '^#include "(viewer|launcher|unwind|collector|mpi|gomp)/' '' \
  'a pure library includes a component' omp ranks

# 5. Dependencies one way: the collector uses the pure libraries, never the wrappers that call
#    into it (mpi/, gomp/) or the offline tools; the wrappers include only the collector's bridge
#    meant for them.
rule 'cc|h' '^#include "(mpi|gomp|viewer|launcher)/' '' \
  'the collector includes code that depends on it' collector
rule 'c|cc|h' '^#include "collector/' '"collector/(mpi_bridge|libgomp/bridge)\.h"' \
  'a wrapper reaches past its bridge into the collector' mpi gomp
rule 'c|cc|h' '^#include "(viewer|launcher|ranks)/' '' 'a wrapper includes offline code' mpi gomp
# 6. The OpenMP event model (collector/openmp/) is fed by the runtimes' adapters and includes
#    neither (collector/ompt/: OMPT; collector/libgomp/: the libgomp wrappers' side), and neither
#    adapter includes the other.
rule 'cc|h' '^#include "collector/(ompt|libgomp)/' '' \
  'the OpenMP event model includes a runtime adapter' collector/openmp
rule 'cc|h' '^#include "collector/libgomp/' '' 'the OMPT adapter includes the libgomp one' \
  collector/ompt
rule 'cc|h' '^#include "collector/ompt/' '' 'the libgomp adapter includes the OMPT one' \
  collector/libgomp
# 7. No product source file over 500 lines (docs/architecture.md): past that, a file holds more
#    than one job.
while read -r n f; do
  [ "$f" != total ] && [ "$n" -gt 500 ] && fail "$f has $n lines, over 500: split it by job"
done < <(git ls-files collector unwind omp ranks regions proto viewer launcher mpi gomp api include \
  | grep -E '\.(c|cc|h)$' | xargs wc -l)
[ $status -eq 0 ] && echo "layout: ok"
exit $status
