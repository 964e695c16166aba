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
  echo "setup: configuring $BUILD (the first build takes 5-10 minutes on two cores)"
  cmake -G Ninja -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
# Ninja's [N/M] progress lines are shown as they come, nothing when up to
# date; on failure the compiler's messages are printed.
log="$BUILD/last-build.log"
set +e
ninja -C "$BUILD" -j "$(nproc)" "$@" 2>&1 | tee "$log" |
  { grep --line-buffered -E '^\[[1-9][0-9]*/[0-9]+\] ' || true; }
status=${PIPESTATUS[0]}
set -e
if [ "$status" -ne 0 ]; then
  grep -vE '^\[[0-9]+/[0-9]+\] ' "$log" | tail -60
  echo "setup: build failed (full log: $log)"
  exit 1
fi
steps=$(grep -cE '^\[[1-9][0-9]*/[0-9]+\] ' "$log" || true)
[ "$steps" -gt 0 ] && echo "setup: built $steps steps"
exit 0
