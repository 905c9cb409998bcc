#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages that building and testing impetus needs, but only those
# that are missing (checked with dpkg), so running it again is a no-op that needs no root.
# Non-interactive; works as root or through sudo. On a system without dpkg it only checks that
# the tools are on PATH and leaves the rest to CMake's error messages.
#
# `tools/setup.sh --peers` also installs the peer engines that only the side-by-side benchmarks
# in tools/peers/ use (MuJoCo, FCL; Bullet's dynamics and soft bodies come with libbullet-dev).
# Building and testing impetus never needs them.
#
# The run viewer (report.html, tools/viewer/) embeds three.js r111 and Chart.js from Debian's
# libjs-three and libjs-chart.js; its browser tests drive Debian's chromium through npm
# puppeteer-core, and its glTF test runs npm gltf-validator. The npm packages go to
# tools/viewer/node_modules (gitignored) from tools/viewer/package-lock.json, with Node.js and
# npm from Debian when the machine has no npm yet.
# `tools/setup.sh --sanitizers` also installs clang, LLVM's OpenMP runtime (libomp-dev, with the
# Archer tool ThreadSanitizer needs) and llvm (llvm-symbolizer for readable reports): the
# fuzzing (IMPETUS_FUZZ) and ThreadSanitizer (IMPETUS_SANITIZE=thread) builds of the README's
# "Sanitizers and fuzzing". The normal build and CI never need them.
#
# libbenchmark-dev is deliberately not listed: impetus-bench uses its own small harness
# (tools/bench/bench.h), so Google Benchmark is never needed. OpenMP comes with g++ (libgomp).
set -euo pipefail

packages=(
  cmake
  g++
  make
  pkg-config
  libeigen3-dev
  libbullet-dev
  libspdlog-dev
  nlohmann-json3-dev
  libgtest-dev
  libjs-three
  libjs-chart.js
  chromium
  # `impetus batch` across ranks (mpirun) and its ctest runs; CMake builds the MPI part only
  # when it finds MPI, so a build without these still works.
  libopenmpi-dev
  openmpi-bin
  # The test that validates scenes and manifests against tools/docs/schema/*.json.
  python3-jsonschema
)
# Node.js may come from elsewhere (a nodejs build that bundles npm); only without npm do the
# Debian packages come in.
if ! command -v npm >/dev/null 2>&1; then
  packages+=(nodejs npm)
fi
if [[ "${1:-}" == --peers ]]; then
  packages+=(libmujoco-dev libfcl-dev)
elif [[ "${1:-}" == --sanitizers ]]; then
  packages+=(clang libomp-dev llvm)
elif (($# > 0)); then
  echo "usage: tools/setup.sh [--peers | --sanitizers]" >&2
  exit 2
fi

if ! command -v dpkg-query >/dev/null 2>&1; then
  echo "setup: no dpkg on this system; not installing anything." >&2
  for tool in cmake c++ make; do
    command -v "$tool" >/dev/null 2>&1 || echo "setup: warning: '$tool' not found on PATH" >&2
  done
  echo "setup: impetus needs CMake >= 3.25, a C++20 compiler with OpenMP, Eigen 3.3+, Bullet" \
       "(double-precision libraries), spdlog, nlohmann_json 3 and GoogleTest; optionally MPI" \
       "(for mpirun impetus batch) and Python's jsonschema (for the schema test)." >&2
  exit 0
fi

missing=()
for pkg in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
  if [[ "$status" != "install ok installed" ]]; then
    missing+=("$pkg")
  fi
done

# The viewer's npm tools, when missing (no root needed; the lock file fixes every version).
install_viewer_tools() {
  local dir=tools/viewer
  [[ -d "$dir/node_modules/gltf-validator" && -d "$dir/node_modules/puppeteer-core" ]] && return 0
  if ! command -v npm >/dev/null 2>&1; then
    echo "setup: warning: no npm; the glTF validator and browser tests will be skipped" >&2
    return 0
  fi
  echo "setup: installing the viewer's npm tools into $dir/node_modules"
  (cd "$dir" && PUPPETEER_SKIP_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error)
}
cd "$(dirname "${BASH_SOURCE[0]}")/.."

if ((${#missing[@]} == 0)); then
  install_viewer_tools
  echo "setup: all build dependencies are installed."
  exit 0
fi

echo "setup: installing missing packages: ${missing[*]}"
if [[ "$(id -u)" -eq 0 ]]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1; then
  as_root=(sudo)
else
  echo "setup: error: need root (or sudo) to install: ${missing[*]}" >&2
  exit 1
fi

# One `apt-get update`, only now that something must be installed.
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive \
  apt-get install -y -q --no-install-recommends "${missing[@]}"
echo "setup: installed: ${missing[*]}"
install_viewer_tools
