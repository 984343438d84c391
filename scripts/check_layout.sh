#!/usr/bin/env bash
# Checks the dependency rules of docs/architecture.md from the #include lines, in the
# signal-handler folder calls that are not async-signal-safe, and the size of every file. Prints each violation; exit 1 if
# any. Run by ctest (layout.dependencies).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
status=0
unsafe='malloc\(|calloc\(|realloc\(|free\(|printf|fopen|std::(string|vector|map|mutex|cout|cerr)|lock_guard|dlsym\(|throw |operator new'
fail() { echo "layout: $*"; status=1; }

# 1. The handler includes only the handler, the state codes, and these system headers.
allowed_system='atomic|cstddef|cstdint|ctime|cstring|new|errno\.h|signal\.h|link\.h|dlfcn\.h|pthread\.h|sys/resource\.h|sys/stat\.h|sys/types\.h|time\.h|ucontext\.h|unistd\.h|linux/perf_event\.h|sys/ioctl\.h|libunwind\.h|omp-tools\.h'
for f in collector/handler/*; do
  while IFS= read -r line; do
    inc=$(sed -E 's/#include [<"]([^>"]+)[>"].*/\1/' <<<"$line")
    case "$line" in
      *'"collector/handler/'* | *'"proto/state_codes.h"'* | *'"proto/journal.h"'* | *'"proto/timeline.h"'*) ;;
      *'"'*) fail "$f includes $inc: the handler may include only collector/handler/, proto/state_codes.h, proto/journal.h and proto/timeline.h (plain data and constexpr rules)" ;;
      *) grep -qxE "$allowed_system" <<<"$inc" || fail "$f includes <$inc>, not on the handler's list" ;;
    esac
  done < <(grep -E '^#include' "$f")
  # Calls that allocate, lock, print or look symbols up, unless the line says it runs in
  # ordinary context.
  hits=$(grep -nE "$unsafe" "$f" | grep -v '// ordinary context' | grep -vE '^[0-9]+:\s*//')
  [ -n "$hits" ] && fail "$(sed "s|^|$f:|; s|$|: not async-signal-safe|" <<<"$hits")"
done

# 2. Offline code never includes the collector.
for f in $(git ls-files launcher viewer omp ranks regions proto unwind | grep -E '\.(cc|h)$'); do
  grep -nE '^#include "collector/' "$f" | sed "s|^|layout: $f:|; s|$|: offline code includes the collector|" | grep . && status=1
done

# 3. Pure libraries (format, regions) include no other component.
for f in $(git ls-files proto regions | grep -E '\.(cc|h)$'); do
  grep -nE '^#include "(viewer|omp|unwind|collector)/' "$f" \
    | sed "s|^|layout: $f:|; s|$|: a pure library includes another component|" | grep . && status=1
done
# 4. Pure libraries (omp/ and ranks/, besides the two above) include only pure libraries and
#    the format's headers: no collector, viewer, launcher, unwinder or MPI code.
for f in $(git ls-files omp ranks | grep -E '\.(cc|h)$'); do
  grep -nE '^#include "(viewer|launcher|unwind|collector|mpi|gomp)/' "$f" \
    | sed "s|^|layout: $f:|; s|$|: a pure library includes a component|" | grep . && status=1
done

# 5. Dependencies one way: the collector uses the pure libraries, never the wrappers that call
#    into it (mpi/, gomp/) or the offline tools; the wrappers include only the collector's bridge
#    meant for them.
for f in $(git ls-files collector | grep -E '\.(cc|h)$'); do
  grep -nE '^#include "(mpi|gomp|viewer|launcher)/' "$f" \
    | sed "s|^|layout: $f:|; s|$|: the collector includes code that depends on it|" | grep . && status=1
done
for f in $(git ls-files mpi gomp | grep -E '\.(c|cc|h)$'); do
  grep -nE '^#include "collector/' "$f" | grep -vE '"collector/(mpi_bridge|gomp_bridge)\.h"' \
    | sed "s|^|layout: $f:|; s|$|: a wrapper reaches past its bridge into the collector|" | grep . && status=1
done
for f in $(git ls-files mpi gomp | grep -E '\.(c|cc|h)$'); do
  grep -nE '^#include "(viewer|launcher|ranks)/' "$f" \
    | sed "s|^|layout: $f:|; s|$|: a wrapper includes offline code|" | grep . && status=1
done
# 6. No product source file over 500 lines (docs/architecture.md): past that, a file holds more
#    than one job.
for f in $(git ls-files collector unwind omp ranks regions proto viewer launcher mpi gomp api include \
  | grep -E '\.(c|cc|h)$'); do
  n=$(wc -l <"$f")
  [ "$n" -gt 500 ] && fail "$f has $n lines, over 500: split it by job"
done
[ $status -eq 0 ] && echo "layout: ok"
exit $status
