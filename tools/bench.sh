#!/usr/bin/env bash
# Builds impetus-bench (Release) and runs one suite: `tools/bench.sh SUITE [--json] [--quick]
# [--scenes DIR]`; `tools/bench.sh --help` lists the suites. Output format:
# tools/docs/bench-format.md.
# Environment: BUILD_DIR (default build), JOBS (default: all cores), BUILD_TYPE (default
# Release), IMPETUS_SKIP_SETUP=1 to skip the package check.
set -euo pipefail

# `--scenes DIR` (or `--shared DIR`) is relative to the caller's directory; make it absolute
# before moving.
args=()
while (($# > 0)); do
  args+=("$1")
  if [[ ("$1" == --scenes || "$1" == --shared) && $# -gt 1 ]]; then
    args+=("$(realpath -m -- "$2")")
    shift
  fi
  shift
done
set -- "${args[@]+"${args[@]}"}"
cd "$(dirname "${BASH_SOURCE[0]}")/.."

BUILD_DIR="${BUILD_DIR:-build}"
JOBS="${JOBS:-$(nproc)}"
BUILD_TYPE="${BUILD_TYPE:-Release}"

if (($# == 0)); then
  echo "usage: tools/bench.sh SUITE [--json] [--quick] [--scenes DIR]" >&2
  exit 2
fi

# Build messages go to stderr so that `tools/bench.sh SUITE --json > out.json` stays valid JSON.
{
  [[ "${IMPETUS_SKIP_SETUP:-0}" == 1 ]] || bash tools/setup.sh
  cmake -S . -B "$BUILD_DIR" --log-level=WARNING -DCMAKE_BUILD_TYPE="$BUILD_TYPE" \
    -DIMPETUS_BUILD_BENCHMARKS=ON
  cmake --build "$BUILD_DIR" -j "$JOBS" --target impetus-bench
} 1>&2
exec "$BUILD_DIR/tools/impetus-bench" "$@"
