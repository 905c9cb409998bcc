#!/usr/bin/env bash
# Installs missing build dependencies, configures (Release), builds the `impetus` CLI and runs a
# scene: `tools/run.sh [SCENE] [-- impetus-run-args]`, ending with the file:// URL of the run's
# report.html. SCENE defaults to scenes/showcase.json; it may be a path (from the current
# directory or the repository root) or a bare scene name (`box_pile` → scenes/box_pile.json). Results go to results/<scene-name>/ in the repository.
# Examples: tools/run.sh; tools/run.sh scenes/box_stack.json -- --threads 1 --every 10
# Environment: BUILD_DIR (default build, relative to the repository root), JOBS (default: all
# cores), BUILD_TYPE (default Release), IMPETUS_SKIP_SETUP=1 to skip the package check.
set -euo pipefail

scene="scenes/showcase.json"
if (($# > 0)) && [[ "$1" != "--" ]]; then
  scene="$1"
  shift
fi
if (($# > 0)); then
  if [[ "$1" != "--" ]]; then
    echo "usage: tools/run.sh [SCENE] [-- impetus-run-args]" >&2
    exit 2
  fi
  shift
fi
# A path given relative to the caller's directory stays valid after the cd below.
if [[ -f "$scene" ]]; then
  scene="$(realpath -- "$scene")"
fi

cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [[ ! -f "$scene" && -f "scenes/$scene.json" ]]; then
  scene="scenes/$scene.json"
fi
if [[ ! -f "$scene" ]]; then
  echo "error: scene not found: $scene" >&2
  exit 2
fi

BUILD_DIR="${BUILD_DIR:-build}"
JOBS="${JOBS:-$(nproc)}"
BUILD_TYPE="${BUILD_TYPE:-Release}"

[[ "${IMPETUS_SKIP_SETUP:-0}" == 1 ]] || bash tools/setup.sh
cmake -S . -B "$BUILD_DIR" --log-level=WARNING -DCMAKE_BUILD_TYPE="$BUILD_TYPE"
cmake --build "$BUILD_DIR" -j "$JOBS" --target impetus_cli

name="$(basename -- "$scene" .json)"
out="results/$name"
echo "run: impetus run $scene --out $out $*"
rc=0
"$BUILD_DIR/tools/impetus" run "$scene" --out "$out" "$@" || rc=$?

summary="$out/summary.json"
# Exit 0 = finished, 3 = diverged (summary still written); otherwise nothing new was written.
if [[ ($rc -eq 0 || $rc -eq 3) && -f "$summary" ]]; then
  echo
  echo "results:"
  echo "  summary:    $PWD/$summary"
  [[ -f "$out/trajectory.jsonl" ]] && echo "  trajectory: $PWD/$out/trajectory.jsonl"
  if command -v jq >/dev/null 2>&1; then
    jq -r 'def r(x; d): (x * d | round) / d;
           "  status \(.status), \(.steps) steps, \(r(.time; 1000)) s simulated, \(.bodies | length) moving bodies",
           "  \(r(.stats.ms_per_step; 1000)) ms/step, \(r(.stats.wall_seconds; 100)) s wall, \(.engine.threads) threads",
           "  contacts max \(.stats.contacts_max), max penetration \(r(.stats.max_penetration * 1000; 1000)) mm",
           "  energy \(r(.stats.energy_start; 10)) J -> \(r(.stats.energy_end; 10)) J, state_hash \(.state_hash)"' \
      "$summary" || true
  elif command -v python3 >/dev/null 2>&1; then
    python3 - "$summary" <<'PY' || true
import json, sys
s = json.load(open(sys.argv[1]))
st = s["stats"]
print(f"  status {s['status']}, {s['steps']} steps, {s['time']:.3f} s simulated, "
      f"{len(s['bodies'])} moving bodies")
print(f"  {st['ms_per_step']:.3f} ms/step, {st['wall_seconds']:.2f} s wall, "
      f"{s['engine']['threads']} threads")
print(f"  contacts max {st['contacts_max']}, max penetration {1000 * st['max_penetration']:.3f} mm")
print(f"  energy {st['energy_start']:.1f} J -> {st['energy_end']:.1f} J, state_hash {s['state_hash']}")
PY
  fi
  if [[ -f "$out/report.html" ]]; then
    echo
    echo "report (3D playback and plots; open it in a browser, it works offline):"
    echo "  file://$(realpath -- "$out/report.html")"
  fi
fi
exit "$rc"
