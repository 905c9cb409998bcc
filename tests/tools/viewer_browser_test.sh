#!/usr/bin/env bash
# ctest `browser_report_*` (label browser): runs SCENE, then opens its report.html in headless
# Chromium (tools/viewer/browser_test.mjs) and checks frames, plots, the drawn final pose of
# BODY, a non-blank 3D canvas and a clean console. Screenshots stay in WORK_DIR as artifacts.
# usage: viewer_browser_test.sh IMPETUS SOURCE_DIR WORK_DIR SCENE BODY [impetus run args...]
# Exit 77 (skipped) without node, Chromium or the npm tools of tools/setup.sh.
set -euo pipefail
impetus=$1 source_dir=$2 work_dir=$3 scene=$4 body=$5
shift 5
if ! command -v node >/dev/null 2>&1; then
  echo "SKIPPED: node not found; tools/setup.sh installs Node.js"
  exit 77
fi
if [[ ! -x /usr/bin/chromium && ! -x /usr/bin/chromium-browser ]]; then
  echo "SKIPPED: chromium not found; tools/setup.sh installs Debian chromium"
  exit 77
fi
name=$(basename "$scene" .json)
out="$work_dir/$name"
rm -rf "$out"
mkdir -p "$work_dir"
"$impetus" run "$source_dir/scenes/$scene" --out "$out" --quiet "$@"
node "$source_dir/tools/viewer/browser_test.mjs" "$out" --body "$body" \
  --screenshot "$work_dir/$name.canvas.png" --page-screenshot "$work_dir/$name.page.png"
