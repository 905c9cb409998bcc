#!/usr/bin/env bash
# ctest `gltf_validator`: exports a rigid scene (box_stack, with `run --gltf`) and a cloth scene
# (cloth_box_stack, with `view DIR --gltf` on its results) as .glb and requires 0 errors from
# the Khronos glTF Validator (npm gltf-validator, tools/viewer/validate_gltf.mjs).
# usage: viewer_gltf_test.sh IMPETUS SOURCE_DIR WORK_DIR
# Exit 77 (skipped) without node or the npm tools of tools/setup.sh.
set -euo pipefail
impetus=$1 source_dir=$2 work_dir=$3
if ! command -v node >/dev/null 2>&1; then
  echo "SKIPPED: node not found; tools/setup.sh installs Node.js"
  exit 77
fi
if [[ ! -d "$source_dir/tools/viewer/node_modules/gltf-validator" ]]; then
  echo "SKIPPED: gltf-validator is not in tools/viewer/node_modules; run tools/setup.sh"
  exit 77
fi
rm -rf "$work_dir"
mkdir -p "$work_dir"
"$impetus" run "$source_dir/scenes/box_stack.json" --out "$work_dir/box_stack" --quiet \
  --no-report --gltf "$work_dir/box_stack.glb"
"$impetus" run "$source_dir/scenes/cloth_box_stack.json" --out "$work_dir/cloth" --quiet \
  --no-report --steps 120 --every 6
"$impetus" view "$work_dir/cloth" --no-report --gltf "$work_dir/cloth.glb" --quiet
node "$source_dir/tools/viewer/validate_gltf.mjs" "$work_dir/box_stack.glb" "$work_dir/cloth.glb"
