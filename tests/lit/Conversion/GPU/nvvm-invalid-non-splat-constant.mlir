// RUN: blockjit-opt %s --verify-diagnostics \
// RUN:   --blk-assign-layouts="num-warps=4" --convert-blk-to-nvvm

// Only splat block constants can be materialized per thread; a dense
// constant with distinct elements is rejected by convert-blk-to-nvvm rather
// than miscompiled. (blk-assign-layouts must leave such a constant valid
// for that: re-typed with the layout, or reported itself.)

func.func @non_splat_constant(%out: !blk.ptr<i32>) {
  // expected-error @+1 {{'arith.constant' op non-splat block constants are not supported on the GPU}}
  %c = arith.constant dense<[0, 1, 2, 3]> : tensor<4xi32>
  %s = blk.reduce sum %c axis = 0 : tensor<4xi32> -> i32
  blk.store %out, %s : !blk.ptr<i32>
  return
}
