// RUN: blockjit-opt %s -canonicalize | FileCheck %s

// broadcast(broadcast x) -> broadcast x.
// CHECK-LABEL: func.func @two_steps
// CHECK-SAME:    (%[[X:.*]]: tensor<1x1xf32>)
// CHECK-NEXT:    %[[B:.*]] = blk.broadcast %[[X]] : tensor<1x1xf32> -> tensor<32x64xf32>
// CHECK-NEXT:    return %[[B]] : tensor<32x64xf32>
func.func @two_steps(%x: tensor<1x1xf32>) -> tensor<32x64xf32> {
  %a = blk.broadcast %x : tensor<1x1xf32> -> tensor<1x64xf32>
  %b = blk.broadcast %a : tensor<1x64xf32> -> tensor<32x64xf32>
  return %b : tensor<32x64xf32>
}

// Three steps collapse to one as well.
// CHECK-LABEL: func.func @three_steps
// CHECK-SAME:    (%[[X:.*]]: tensor<1x1x1xi32>)
// CHECK-NEXT:    %[[B:.*]] = blk.broadcast %[[X]] : tensor<1x1x1xi32> -> tensor<2x4x8xi32>
// CHECK-NEXT:    return %[[B]]
func.func @three_steps(%x: tensor<1x1x1xi32>) -> tensor<2x4x8xi32> {
  %a = blk.broadcast %x : tensor<1x1x1xi32> -> tensor<2x1x1xi32>
  %b = blk.broadcast %a : tensor<2x1x1xi32> -> tensor<2x4x1xi32>
  %c = blk.broadcast %b : tensor<2x4x1xi32> -> tensor<2x4x8xi32>
  return %c : tensor<2x4x8xi32>
}

// The inner broadcast stays when it has another use; the outer one reads x.
// CHECK-LABEL: func.func @inner_kept
// CHECK-SAME:    (%[[X:.*]]: tensor<1x1xf16>)
// CHECK-DAG:     %[[A:.*]] = blk.broadcast %[[X]] : tensor<1x1xf16> -> tensor<1x8xf16>
// CHECK-DAG:     %[[B:.*]] = blk.broadcast %[[X]] : tensor<1x1xf16> -> tensor<4x8xf16>
// CHECK:         return %[[A]], %[[B]]
func.func @inner_kept(%x: tensor<1x1xf16>) -> (tensor<1x8xf16>, tensor<4x8xf16>) {
  %a = blk.broadcast %x : tensor<1x1xf16> -> tensor<1x8xf16>
  %b = blk.broadcast %a : tensor<1x8xf16> -> tensor<4x8xf16>
  return %a, %b : tensor<1x8xf16>, tensor<4x8xf16>
}

// Inner broadcast to the same shape folds first; the outer one remains.
// CHECK-LABEL: func.func @inner_identity
// CHECK-SAME:    (%[[X:.*]]: tensor<1x8xf32>)
// CHECK-NEXT:    %[[B:.*]] = blk.broadcast %[[X]] : tensor<1x8xf32> -> tensor<4x8xf32>
// CHECK-NEXT:    return %[[B]]
func.func @inner_identity(%x: tensor<1x8xf32>) -> tensor<4x8xf32> {
  %a = blk.broadcast %x : tensor<1x8xf32> -> tensor<1x8xf32>
  %b = blk.broadcast %a : tensor<1x8xf32> -> tensor<4x8xf32>
  return %b : tensor<4x8xf32>
}
