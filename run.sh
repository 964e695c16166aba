#!/usr/bin/env bash
# The main job: JIT-compile the softmax example, run it on the GPU if there is
# one (else on the CPU backend), check it against a plain C++ reference and
# print the result. Installs missing packages and builds what changed first.
#   ./run.sh [softmax options, e.g. --rows 4096 --cols 1024 --target cpu]
# (by default 1823 rows of 781 columns; long rows, e.g. --cols 1048577, get
# fewer rows and the softmax_online kernel)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BUILD="${BLOCKJIT_BUILD_DIR:-$ROOT/build}"
# Every program the README uses: the example, the tools, the C ABI and the
# archive for programs built elsewhere (tests: ./test.sh).
"$ROOT/scripts/setup.sh" softmax blockjit-dump blockjit-opt blockjit_c blockjit
exec "$BUILD/bin/softmax" "$@"
