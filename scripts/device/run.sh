#!/usr/bin/env bash
# On the GPU machine, from the repository root: unpacks .carry/*.xz (made by
# scripts/device/pack.sh) into .carry/bin once, links build/lib and build/bin
# to them, then runs each TASK in turn; results go to $OUT.
#   bash .carry/run.sh info gputests long tunings 'any shell command'
# Tasks: info (GPU, clocks); gputests (GFILTER=... a gtest filter, GSHARDS=4
# processes); differential (DFILTER=..., DSHARDS=8); long (python3
# bench/softmax_long_rows.py, LONGARGS=...); tunings (every tuning entry of
# $BLOCKJIT_CACHE_DIR, each config's time, into $OUT/tunings.txt);
# sanitize-TOOL (compute-sanitizer --tool TOOL on blockjit-gputests with
# SANFILTER=...).
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
# Runs the GoogleTest binary $1 as $3 processes at once, each a shard of the
# cases matching filter $4 (GTEST_TOTAL_SHARDS), each logging in full to
# $OUT/$2.<shard>.log (a run cut short keeps what it printed); prints the
# failed cases and the totals. The differential suite compiles each case on
# the CPU, so 8 shards on the device's 16 cores take about a quarter of the
# time of one process.
sharded() {
  local bin=$1 name=$2 shards=$3 filter=$4 pids=() rc=0 i
  rm -f "$OUT/$name".*.log
  for ((i = 0; i < shards; i++)); do
    GTEST_TOTAL_SHARDS=$shards GTEST_SHARD_INDEX=$i "$bin" --gtest_brief=1 \
      ${filter:+--gtest_filter=$filter} > "$OUT/$name.$i.log" 2>&1 &
    pids+=($!)
  done
  for i in "${pids[@]}"; do wait "$i" || rc=1; done
  grep -h '^\[  FAILED  \] [A-Za-z]' "$OUT/$name".*.log | sort -u | head -40
  awk -v name="$name" -v shards="$shards" '
    /^\[  PASSED  \]/ { passed += $4 }
    /^\[  SKIPPED \] [0-9]/ { skipped += $4 }
    # --gtest_brief prints no "N tests, listed below" line: count the
    # failed cases themselves (each once, with its time).
    /^\[  FAILED  \] [A-Za-z].* \([0-9]+ ms\)$/ { if (!seen[$3]++) failed++ }
    END { printf "%s: %d passed, %d failed, %d skipped (%d shards)\n",
                 name, passed, failed, skipped, shards }' "$OUT/$name".*.log
  return $rc
}

for task in "$@"; do
  echo "=== $task $(date +%T)"
  case "$task" in
    info) nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,memory.total --format=csv ;;
    gputests) sharded build/bin/blockjit-gputests gputests "${GSHARDS:-4}" "${GFILTER:-}" ;;
    differential) sharded build/bin/blockjit-differential-unittests differential "${DSHARDS:-8}" "${DFILTER:-}" ;;
    long) python3 bench/softmax_long_rows.py --lib build/lib/libblockjit_c.so --out "$OUT" ${LONGARGS:-} 2>&1 | grep -v '^blockjit: tuning' ;;
    tunings) grep -rla '^config' "$BLOCKJIT_CACHE_DIR" 2>/dev/null |
               while read -r f; do echo "## $f"; grep -a '^key\|^config\|^timed' "$f"; done > "$OUT/tunings.txt"
             wc -l "$OUT/tunings.txt" ;;
    sanitize-*) compute-sanitizer --tool "${task#sanitize-}" --error-exitcode 9 \
                  build/bin/blockjit-gputests --gtest_brief=1 --gtest_filter="${SANFILTER:?set SANFILTER}" 2>&1 | tail -15 ;;
    *) bash -c "$task" ;;
  esac
done
