#!/usr/bin/env bash
# The SASS of a kernel as blockjit compiles it, for reading what ptxas made
# of the PTX (registers, spills, the instructions of each element), without
# a GPU: blockjit-dump's PTX, ptxas -v, then nvdisasm, with a count of each
# opcode.
#   scripts/sass.sh softmax --dtype bf16 --block-size 262144 --num-ctas 16 \
#       --num-warps 4 --num-stages 3
# Arguments are blockjit-dump's (kernel, --dtype, --block-size, --constexpr,
# --num-warps, ...); --sm defaults to 90. Needs ptxas ($BLOCKJIT_PTXAS, PATH
# or /usr/local/cuda/bin). nvdisasm comes from PyPI's nvidia-cuda-nvdisasm
# wheel on first use (cached in ~/.cache/blockjit-tools). The SASS is left
# in $SASS_OUT (default /tmp/blockjit-sass).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${BLOCKJIT_BUILD_DIR:-$ROOT/build}"
OUT="${SASS_OUT:-/tmp/blockjit-sass}"
TOOLS="${XDG_CACHE_HOME:-$HOME/.cache}/blockjit-tools"
mkdir -p "$OUT" "$TOOLS"

PTXAS="${BLOCKJIT_PTXAS:-$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)}"
[ -x "$PTXAS" ] || { echo "sass.sh: no ptxas (set BLOCKJIT_PTXAS)" >&2; exit 1; }

NVDISASM="$(find "$TOOLS" -name nvdisasm -type f 2>/dev/null | head -1)"
if [ -z "$NVDISASM" ]; then
  echo "sass.sh: fetching nvdisasm from PyPI (nvidia-cuda-nvdisasm) ..." >&2
  python3 -m pip download -q --no-deps nvidia-cuda-nvdisasm -d "$TOOLS/wheel"
  python3 -m zipfile -e "$(ls "$TOOLS"/wheel/*.whl | head -1)" "$TOOLS/nvdisasm"
  NVDISASM="$(find "$TOOLS/nvdisasm" -name nvdisasm -type f | head -1)"
  chmod +x "$NVDISASM"
fi

sm=90
for a in "$@"; do case "$a" in --sm=*) sm="${a#--sm=}" ;; esac; done
args=("$@")
printf '%s\n' "${args[@]}" | grep -q -- '^--sm' || args+=(--sm "$sm")
"$BUILD/bin/blockjit-dump" "${args[@]}" --target cuda --stage ptx > "$OUT/kernel.ptx"
head -1 "$OUT/kernel.ptx"
arch="$(sed -n 's/^\.target[[:space:]]*\(sm_[0-9a-z]*\).*/\1/p' "$OUT/kernel.ptx" | head -1)"
"$PTXAS" -arch="${arch:-sm_$sm}" -v "$OUT/kernel.ptx" -o "$OUT/kernel.cubin" 2>&1 |
  grep -E 'registers|spill' | sed 's/^ptxas info *: *//'
"$NVDISASM" -c "$OUT/kernel.cubin" > "$OUT/kernel.sass"
echo "$(grep -cE '^[[:space:]]+/\*[0-9a-f]+\*/' "$OUT/kernel.sass") instructions in $OUT/kernel.sass; by opcode:"
grep -oE '^[[:space:]]+/\*[0-9a-f]+\*/[[:space:]]+(@!?U?P[0-9T] )?[A-Z0-9.]+' "$OUT/kernel.sass" |
  awk '{print $NF}' | sed 's/\..*//' | sort | uniq -c | sort -rn | head -20
