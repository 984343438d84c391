#!/usr/bin/env bash
# Installs omprof from BUILD into a scratch prefix, then builds an annotated program against it
# with find_package(omprof) and with pkg-config, runs it plain and under the installed omprof.
set -euo pipefail
shopt -s extglob
build=$1
src=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null

cmake -S "$src/consumer" -B "$work/cmake-build" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$work/cmake-build" >/dev/null
export LD_LIBRARY_PATH=$prefix/lib
[ "$("$work/cmake-build/consumer")" = "consumer 1" ]

flags=$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags --libs omprof)
# shellcheck disable=SC2086
c++ -std=c++17 "$src/consumer/main.cpp" $flags -o "$work/pc-consumer"
# The pkg-config flags alone make a program that starts from the prefix.
[ "$(env -u LD_LIBRARY_PATH "$work/pc-consumer")" = "consumer 1" ]

# A program that cannot start (its library is not found): omprof says so, with the loader's 127.
# shellcheck disable=SC2086
c++ -std=c++17 "$src/consumer/main.cpp" ${flags//-Wl,-rpath,*([^ ])/} -o "$work/no-rpath"
set +e
env -u LD_LIBRARY_PATH "$prefix/bin/omprof" run -o "$work/none" -- "$work/no-rpath" 2>"$work/err" >/dev/null
status=$?
set -e
[ "$status" = 127 ] || { echo "expected exit 127, got $status"; exit 1; }
grep -q "could not start (exit status 127" "$work/err" || { cat "$work/err"; exit 1; }

mkdir "$work/out"
"$prefix/bin/omprof" run -o "$work/out" -- "$work/pc-consumer" >/dev/null 2>&1
"$prefix/bin/omprof" report --regions --csv "$work"/out/*.omprof | grep -q '^1,0,1,consumer_phase,1,1,'
echo "install test passed"
