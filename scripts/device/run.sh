#!/usr/bin/env bash
# On the GPU machine, from the repository root: unpacks .carry/*.xz (made by
# scripts/device/pack.sh) into .carry/bin once, links build/lib and build/bin
# to them, then runs each TASK in turn; results go to $OUT.
#   bash .carry/run.sh info gputests long tunings 'any shell command'
# Tasks: info (GPU, clocks); gputests (GFILTER=... a gtest filter);
# differential (DFILTER=...); long (python3 bench/softmax_long_rows.py,
# LONGARGS=...); tunings (every tuning entry of $BLOCKJIT_CACHE_DIR, each
# config's time, into $OUT/tunings.txt); sanitize-TOOL (compute-sanitizer
# --tool TOOL on blockjit-gputests with SANFILTER=...).
cd "$(dirname "$0")/.."
mkdir -p .carry/bin build/lib build/bin
for f in .carry/*.xz; do
  [ -e "$f" ] || continue
  b=.carry/bin/$(basename "$f" .xz)
  [ -x "$b" ] && [ "$b" -nt "$f" ] || { xz -dc "$f" > "$b" && chmod +x "$b"; }
  case "$b" in
    *.so) ln -sf "$PWD/$b" "build/lib/$(basename "$b")" ;;
    *) ln -sf "$PWD/$b" "build/bin/$(basename "$b")" ;;
  esac
done
export PYTHONUNBUFFERED=1
export BLOCKJIT_CACHE_DIR="${BLOCKJIT_CACHE_DIR:-/tmp/blockjit-device-cache}"
OUT="${OUT:-/tmp/out}"
mkdir -p "$OUT"
for task in "$@"; do
  echo "=== $task $(date +%T)"
  case "$task" in
    info) nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,memory.total --format=csv ;;
    # The whole log goes to $OUT (a run cut short by a timeout keeps what it
    # printed); the tail to stdout.
    gputests) build/bin/blockjit-gputests --gtest_brief=1 ${GFILTER:+--gtest_filter=$GFILTER} > "$OUT/gputests.log" 2>&1
              tail -30 "$OUT/gputests.log" ;;
    differential) build/bin/blockjit-differential-unittests --gtest_brief=1 ${DFILTER:+--gtest_filter=$DFILTER} > "$OUT/differential.log" 2>&1
                  tail -30 "$OUT/differential.log" ;;
    long) python3 bench/softmax_long_rows.py --lib build/lib/libblockjit_c.so --out "$OUT" ${LONGARGS:-} 2>&1 | grep -v '^blockjit: tuning' ;;
    tunings) grep -rla '^config' "$BLOCKJIT_CACHE_DIR" 2>/dev/null |
               while read -r f; do echo "## $f"; grep -a '^key\|^config\|^timed' "$f"; done > "$OUT/tunings.txt"
             wc -l "$OUT/tunings.txt" ;;
    sanitize-*) compute-sanitizer --tool "${task#sanitize-}" --error-exitcode 9 \
                  build/bin/blockjit-gputests --gtest_brief=1 --gtest_filter="${SANFILTER:?set SANFILTER}" 2>&1 | tail -15 ;;
    *) bash -c "$task" ;;
  esac
done
