#!/usr/bin/env bash
# Runs every test: the lit suite (FileCheck) and the GoogleTest binaries.
# Installs missing packages and builds what changed first.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BUILD="${BLOCKJIT_BUILD_DIR:-$ROOT/build}"
"$ROOT/scripts/setup.sh" || { echo "build failed"; exit 1; }

# Tests compile into a private disk cache, never into ~/.cache/blockjit.
BLOCKJIT_CACHE_DIR="$(mktemp -d /tmp/blockjit-test-cache-XXXXXX)"
export BLOCKJIT_CACHE_DIR
trap 'rm -rf "$BLOCKJIT_CACHE_DIR"' EXIT

status=0
echo "== lit"
lit_out="$(/usr/lib/llvm-22/bin/lit -sv "$BUILD/tests/lit" 2>&1)" || status=1
echo "$lit_out" | grep -E '^(FAIL|XPASS|UNRESOLVED):|Passed|Failed|Unsupported|Total' || true
[ $status -ne 0 ] && echo "$lit_out" | sed -n '/^\*\*\*\*\*\*\*\*\*\* TEST/,/^\*\*\*\*\*\*\*\*\*\*$/p' | head -200
lit_pass=$(echo "$lit_out" | sed -nE 's/^ *Passed *: *([0-9]+).*/\1/p'); lit_pass=${lit_pass:-0}
lit_fail=$(echo "$lit_out" | awk -F: '/^ *(Failed|Unresolved|Unexpectedly Passed) *:/ {n += $2} END {print n + 0}')
[ "$lit_pass" -eq 0 ] && { echo "lit ran no test"; status=1; }

gt_pass=0; gt_fail=0
for exe in "$BUILD"/bin/*-unittests "$BUILD"/bin/*-gputests; do
  [ -x "$exe" ] || continue
  echo "== $(basename "$exe")"
  out="$(cd "$BUILD" && "$exe" --gtest_brief=1 2>&1)" || status=1
  echo "$out" | grep -vE '^\[ *(OK|RUN) *\]' | tail -40
  p=$(echo "$out" | sed -nE 's/^\[  PASSED  \] ([0-9]+) tests?.*/\1/p'); gt_pass=$((gt_pass + ${p:-0}))
  s=$(echo "$out" | sed -nE 's/^\[  SKIPPED \] ([0-9]+) tests?.*/\1/p' | head -1); gt_skip=$(( ${gt_skip:-0} + ${s:-0}))
  # --gtest_brief does not always print the "N tests, listed below" line:
  # failures are what ran and neither passed nor skipped.
  n=$(echo "$out" | sed -nE 's/^\[==========\] ([0-9]+) tests? from .* ran\..*/\1/p' | tail -1)
  f=$(( ${n:-0} - ${p:-0} - ${s:-0} ))
  if [ -z "$n" ]; then f=1; fi  # crashed before the summary
  gt_fail=$((gt_fail + f))
done

# Short fixed-seed fuzz runs (docs/FUZZING.md); each fuzzer counts as one
# test. --runs keeps them deterministic, --max-seconds is a safety net.
echo "== fuzz"
fz_pass=0; fz_fail=0
for fuzz in \
  "blockjit-fuzz-ir --seeds tests/lit --seed 1 --runs 3000 --jobs 2 --max-seconds 60 --known-crashes tests/fuzz/known-crashes.txt" \
  "blockjit-fuzz-dsl --seed 1 --runs 300 --max-seconds 60"; do
  out="$(cd "$ROOT" && BLOCKJIT_CPU_THREADS=2 "$BUILD"/bin/$fuzz 2>&1)"
  if [ $? -eq 0 ]; then
    fz_pass=$((fz_pass + 1))
  else
    fz_fail=$((fz_fail + 1)); status=1
    echo "$out" | grep -v '(KNOWN ' | tail -60
  fi
  echo "$out" | grep -E '^(fuzz-(ir|dsl): [0-9]+ (inputs|kernels)|distinct crash)'
done

# blockjit as another project uses it (examples/external), one test each:
# built against the installed package (build/install, build/external;
# incremental: an unchanged install relinks nothing) and run on the CPU;
# and configured through add_subdirectory (configure only: building would
# compile blockjit a second time).
echo "== package"
pk_pass=0; pk_fail=0
package_test() { # NAME FUNCTION
  local out
  if out="$("$2" 2>&1)"; then
    pk_pass=$((pk_pass + 1)); echo "$1: ${out##*$'\n'}"
  else
    pk_fail=$((pk_fail + 1)); status=1; echo "$1: FAILED"; echo "$out" | tail -40
  fi
}
installed_package() {
  cmake --install "$BUILD" --prefix "$BUILD/install" --component blockjit-dev >/dev/null &&
  { [ -f "$BUILD/external/build.ninja" ] ||
    cmake -G Ninja -S "$ROOT/examples/external" -B "$BUILD/external" \
      -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$BUILD/install" >/dev/null; } &&
  ninja -C "$BUILD/external" | { grep -vE '^(\[[0-9]+/[0-9]+\] |ninja: )' || true; } &&
  BLOCKJIT_TARGET=cpu "$BUILD/external/saxpy"
}
subdirectory() {
  local dir; dir="$(mktemp -d /tmp/blockjit-subdirectory-XXXXXX)"
  cmake -G Ninja -S "$ROOT/examples/external" -B "$dir" -DBLOCKJIT_SOURCE_DIR="$ROOT" >/dev/null &&
  echo "configured with add_subdirectory"
  local rc=$?; rm -rf "$dir"; return $rc
}
package_test "find_package(blockjit)" installed_package
package_test "add_subdirectory(blockjit)" subdirectory

echo "lit: $lit_pass passed, $lit_fail failed"
echo "googletest: $gt_pass passed, $gt_fail failed, ${gt_skip:-0} skipped"
echo "fuzz: $fz_pass passed, $fz_fail failed"
echo "package: $pk_pass passed, $pk_fail failed"
echo "$((lit_pass + gt_pass + fz_pass + pk_pass)) passed, $((lit_fail + gt_fail + fz_fail + pk_fail)) failed"
[ $((lit_fail + gt_fail + fz_fail + pk_fail)) -eq 0 ] || status=1
exit $status
