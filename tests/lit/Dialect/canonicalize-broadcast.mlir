// RUN: blockjit-opt %s -canonicalize | FileCheck %s

// Broadcast to the same shape is the identity.
// CHECK-LABEL: func.func @same_shape
// CHECK-SAME:    (%[[X:.*]]: tensor<1x64xf32>)
// CHECK-NOT:     blk.broadcast
// CHECK:         return %[[X]] : tensor<1x64xf32>
func.func @same_shape(%x: tensor<1x64xf32>) -> tensor<1x64xf32> {
  %b = blk.broadcast %x : tensor<1x64xf32> -> tensor<1x64xf32>
  return %b : tensor<1x64xf32>
}

// CHECK-LABEL: func.func @same_shape_ptrs
// CHECK-SAME:    (%[[X:.*]]: tensor<8x8x!blk.ptr<f16>>)
// CHECK-NOT:     blk.broadcast
// CHECK:         return %[[X]]
func.func @same_shape_ptrs(%x: tensor<8x8x!blk.ptr<f16>>) -> tensor<8x8x!blk.ptr<f16>> {
  %b = blk.broadcast %x : tensor<8x8x!blk.ptr<f16>> -> tensor<8x8x!blk.ptr<f16>>
  return %b : tensor<8x8x!blk.ptr<f16>>
}

// Broadcast of a splat constant is a splat constant of the result shape.
// CHECK-LABEL: func.func @splat_constant
// CHECK-NOT:     blk.broadcast
// CHECK:         %[[C:.*]] = arith.constant dense<2.000000e+00> : tensor<32x64xf32>
// CHECK-NOT:     blk.broadcast
// CHECK:         return %[[C]] : tensor<32x64xf32>
func.func @splat_constant() -> tensor<32x64xf32> {
  %c = arith.constant dense<2.0> : tensor<1x64xf32>
  %b = blk.broadcast %c : tensor<1x64xf32> -> tensor<32x64xf32>
  return %b : tensor<32x64xf32>
}

// CHECK-LABEL: func.func @splat_constant_i1
// CHECK:         %[[C:.*]] = arith.constant dense<false> : tensor<4x16xi1>
// CHECK-NEXT:    return %[[C]]
func.func @splat_constant_i1() -> tensor<4x16xi1> {
  %c = arith.constant dense<false> : tensor<4x1xi1>
  %b = blk.broadcast %c : tensor<4x1xi1> -> tensor<4x16xi1>
  return %b : tensor<4x16xi1>
}

// splat -> broadcast with a constant scalar: everything folds to one constant.
// CHECK-LABEL: func.func @splat_of_constant_then_broadcast
// CHECK:         %[[C:.*]] = arith.constant dense<-1> : tensor<16x16xi32>
// CHECK-NEXT:    return %[[C]]
func.func @splat_of_constant_then_broadcast() -> tensor<16x16xi32> {
  %c = arith.constant -1 : i32
  %s = blk.splat %c : i32 -> tensor<1x16xi32>
  %b = blk.broadcast %s : tensor<1x16xi32> -> tensor<16x16xi32>
  return %b : tensor<16x16xi32>
}
