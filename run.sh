#!/usr/bin/env bash
# The main job: JIT-compile the softmax example, run it on the GPU if there is
# one (else on the CPU backend), check it against a plain C++ reference and
# print the result. Installs missing packages and builds what changed first.
#   ./run.sh [softmax options, e.g. --rows 4096 --cols 1024 --target cpu]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BUILD="${BLOCKJIT_BUILD_DIR:-$ROOT/build}"
"$ROOT/scripts/setup.sh" blockjit-opt blockjit-dump
"$BUILD/bin/blockjit-dump" softmax --block-size 1024 --stage=blk
"$BUILD/bin/blockjit-opt" "$ROOT/tests/lit/Dialect/softmax.mlir"
