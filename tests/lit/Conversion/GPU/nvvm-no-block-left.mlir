// convert-blk-to-nvvm is a 1:N dialect conversion: while it runs, a block
// whose producer is already rewritten but whose users are not is bridged by
// an unrealized_conversion_cast between the block and its per-thread
// elements. Every such cast must be gone at the end: on every kernel of the
// nvvm tests, the GPU softmax and a vector add, no block type is left (the
// casts the patterns create themselves, !blk.ptr to !llvm.ptr<1> and back,
// stay for convert-blk-to-llvm-gpu).
//
// RUN: for f in nvvm-2d nvvm-for-carry nvvm-for-unsigned nvvm-grid \
// RUN:     nvvm-load-vector nvvm-math nvvm-reduce nvvm-reduce-types \
// RUN:     nvvm-reduce-two-kernels nvvm-store-vector; do \
// RUN:   for w in 1 4 8; do \
// RUN:     blockjit-opt %S/$f.mlir --split-input-file \
// RUN:       --blk-assign-layouts="num-warps=$w" --convert-blk-to-nvvm || exit 1; \
// RUN:   done; \
// RUN: done | FileCheck %s --implicit-check-not="tensor<"
// RUN: blockjit-opt %S/../../Dialect/softmax.mlir --blk-assign-layouts="num-warps=8" \
// RUN:   --convert-blk-to-nvvm | FileCheck %s --implicit-check-not="tensor<"
// RUN: blockjit-opt %S/../../Dialect/kernel-vector-add.mlir \
// RUN:   --blk-assign-layouts="num-warps=2" --convert-blk-to-nvvm \
// RUN:   | FileCheck %s --implicit-check-not="tensor<"

// CHECK: func.func
