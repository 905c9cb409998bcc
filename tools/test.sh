#!/usr/bin/env bash
# Installs missing build dependencies, configures (Release), builds everything (library, CLI,
# tests, impetus-bench) and runs the whole test suite with ctest. Extra arguments go to ctest
# (e.g. `tools/test.sh -R cli`).
# Environment: BUILD_DIR (default build), JOBS (default: all cores), BUILD_TYPE (default
# Release), IMPETUS_SKIP_SETUP=1 to skip the package check.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

BUILD_DIR="${BUILD_DIR:-build}"
JOBS="${JOBS:-$(nproc)}"
BUILD_TYPE="${BUILD_TYPE:-Release}"

[[ "${IMPETUS_SKIP_SETUP:-0}" == 1 ]] || bash tools/setup.sh
cmake -S . -B "$BUILD_DIR" --log-level=WARNING -DCMAKE_BUILD_TYPE="$BUILD_TYPE" \
  -DIMPETUS_BUILD_TESTS=ON -DIMPETUS_BUILD_BENCHMARKS=ON
cmake --build "$BUILD_DIR" -j "$JOBS"

log="$BUILD_DIR/ctest.log"
rc=0
ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$JOBS" "$@" 2>&1 | tee "$log" || rc=$?
echo
echo "test: $(grep -E 'tests passed|No tests were found' "$log" | tail -n 1 || echo 'no ctest summary')"
echo "test: full log in $log"
exit "$rc"
