#!/usr/bin/env bash
# Packs built binaries for a GPU machine without LLVM: each named file of
# build/ is stripped and xz-compressed into .carry/ (ignored by git; name
# .carry in the device tool's `carry`), with run.sh beside them.
#   scripts/device/pack.sh [lib/libblockjit_c.so bin/blockjit-gputests ...]
# A stripped binary is ~57 MB, ~15 MB compressed: a 64 MiB carry holds four.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="${BLOCKJIT_BUILD_DIR:-$ROOT/build}"
grep -qx '/.carry/' "$ROOT/.git/info/exclude" 2>/dev/null ||
  echo '/.carry/' >> "$ROOT/.git/info/exclude"
mkdir -p "$ROOT/.carry"
files=("$@")
((${#files[@]})) || files=(lib/libblockjit_c.so bin/blockjit-gputests)
for f in "${files[@]}"; do
  name="$(basename "$f")"
  strip -o "/tmp/$name.stripped" "$BUILD/$f"
  xz -T0 -6 -c "/tmp/$name.stripped" > "$ROOT/.carry/$name.xz"
  rm -f "/tmp/$name.stripped"
  echo "$f -> .carry/$name.xz ($(du -h "$ROOT/.carry/$name.xz" | cut -f1))"
done
cp "$ROOT/scripts/device/run.sh" "$ROOT/.carry/run.sh"
du -sh "$ROOT/.carry"
