#!/usr/bin/env bash
# Shared by run.sh and test.sh: install what is missing (quietly, idempotent),
# configure once, then build the named targets (default: all) incrementally.
#   scripts/setup.sh [TARGET...]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${BLOCKJIT_BUILD_DIR:-$ROOT/build}"

PACKAGES=(cmake ninja-build g++ python3 llvm-22-dev libmlir-22-dev mlir-22-tools
          llvm-22-tools libzstd-dev zlib1g-dev libffi-dev libedit-dev libxml2-dev
          libgtest-dev)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [ ! -f "$BUILD/build.ninja" ]; then
  cmake -G Ninja -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
# Quiet when up to date; on failure the compiler's messages are printed.
log="$BUILD/last-build.log"
if ! ninja -C "$BUILD" -j "$(nproc)" "$@" >"$log" 2>&1; then
  grep -vE '^\[[0-9]+/[0-9]+\] ' "$log" | tail -60
  echo "setup: build failed (full log: $log)"
  exit 1
fi
steps=$(grep -cE '^\[[0-9]+/[0-9]+\] ' "$log" || true)
[ "$steps" -gt 0 ] && echo "setup: built $steps steps"
exit 0
