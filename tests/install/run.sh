#!/usr/bin/env bash
# Installs omprof from BUILD into a scratch prefix, then builds an annotated program against it
# with find_package(omprof) and with pkg-config, runs it plain and under the installed omprof.
set -euo pipefail
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
[ "$("$work/pc-consumer")" = "consumer 1" ]

mkdir "$work/out"
"$prefix/bin/omprof" run -o "$work/out" -- "$work/pc-consumer" >/dev/null 2>&1
"$prefix/bin/omprof" report --regions --csv "$work"/out/*.omprof | grep -q '^1,0,1,consumer_phase,1,1,'
echo "install test passed"
