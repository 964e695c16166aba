// RUN: blockjit-opt %s -canonicalize | FileCheck %s
//
// KNOWN GAP (XFAIL until fixed): expand_dims(splat x) -> splat x is a
// canonicalization pattern, but when x is a constant, SplatOp::fold turns the
// splat into `arith.constant dense<...>` first and the pattern no longer
// matches. Unlike BroadcastOp, ExpandDimsOp has no folder for a splat
// constant operand, so `blk.expand_dims %cst` is left behind. Intended result:
// one dense constant of the expanded shape.

// CHECK-LABEL: func.func @expand_of_constant_splat
// CHECK-NOT:     blk.expand_dims
// CHECK:         %[[C:.*]] = arith.constant dense<4> : tensor<8x1xi32>
// CHECK-NEXT:    return %[[C]]
func.func @expand_of_constant_splat() -> tensor<8x1xi32> {
  %c = arith.constant 4 : i32
  %s = blk.splat %c : i32 -> tensor<8xi32>
  %e = blk.expand_dims %s axis = 1 : tensor<8xi32> -> tensor<8x1xi32>
  return %e : tensor<8x1xi32>
}

// CHECK-LABEL: func.func @expand_of_dense_splat
// CHECK-NOT:     blk.expand_dims
// CHECK:         %[[C:.*]] = arith.constant dense<1.000000e+00> : tensor<1x16xf32>
// CHECK-NEXT:    return %[[C]]
func.func @expand_of_dense_splat() -> tensor<1x16xf32> {
  %c = arith.constant dense<1.0> : tensor<16xf32>
  %e = blk.expand_dims %c axis = 0 : tensor<16xf32> -> tensor<1x16xf32>
  return %e : tensor<1x16xf32>
}
