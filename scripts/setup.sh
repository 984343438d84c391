#!/usr/bin/env bash
# Installs the Debian 12 packages omprof needs (only those missing), then configures and builds.
# Idempotent: a second run installs nothing and rebuilds only what changed.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${OMPROF_BUILD_DIR:-$here/build}

packages=(cmake make g++ gcc gfortran clang-14 libomp-14-dev libunwind-dev libdw-dev libelf-dev
  libpapi-dev libpfm4-dev libprotobuf-dev protobuf-compiler libre2-dev libgtest-dev libgmock-dev libbenchmark-dev
  libopenmpi-dev openmpi-bin libcli11-dev libfmt-dev nlohmann-json3-dev clang-format clang-tidy
  pkg-config strace python3)
# scripts/test.sh also needs go (the export tests open profiles with `go tool pprof`),
# jsonschema (they validate speedscope files against speedscope's schema), chromium (the
# `omprof view` page is tested in a headless browser) and MPICH beside Open MPI (omprof builds
# its MPI wrappers for each MPI it finds; Open MPI stays Debian's default mpicc and mpirun).
[ "${OMPROF_SETUP_TESTS:-0}" = 1 ] && packages+=(golang-go python3-jsonschema chromium mpich
  libmpich-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# A unity build (a target's sources compiled a few at a time as one): about half the time of a
# fresh build on a 2-vCPU VM. OMPROF_UNITY_BUILD=OFF compiles each source alone, for a developer
# who rebuilds after small edits. clang-tidy still checks each source alone (check_style.sh).
cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=${OMPROF_BUILD_TYPE:-RelWithDebInfo} \
  -DCMAKE_UNITY_BUILD=${OMPROF_UNITY_BUILD:-ON} >/dev/null
cmake --build "$build" -j"$(nproc)"
