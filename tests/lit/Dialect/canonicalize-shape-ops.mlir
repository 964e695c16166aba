// RUN: blockjit-opt %s -canonicalize | FileCheck %s

// reshape(reshape x) -> reshape x; reshape back to the source type -> x.
// CHECK-LABEL: func.func @reshape_of_reshape
// CHECK-SAME:    (%[[X:.*]]: tensor<32xf32>)
// CHECK-NEXT:    %[[R:.*]] = blk.reshape %[[X]] : tensor<32xf32> -> tensor<2x16xf32>
// CHECK-NEXT:    return %[[R]], %[[X]]
func.func @reshape_of_reshape(%x: tensor<32xf32>) -> (tensor<2x16xf32>, tensor<32xf32>) {
  %a = blk.reshape %x : tensor<32xf32> -> tensor<4x8xf32>
  %b = blk.reshape %a : tensor<4x8xf32> -> tensor<2x16xf32>
  %c = blk.reshape %b : tensor<2x16xf32> -> tensor<32xf32>
  return %b, %c : tensor<2x16xf32>, tensor<32xf32>
}

// trans(trans x) -> x; the identity permutation -> x.
// CHECK-LABEL: func.func @trans_of_trans
// CHECK-SAME:    (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NEXT:    return %[[X]], %[[X]]
func.func @trans_of_trans(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %t = blk.permute %x order = [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  %u = blk.permute %t order = [1, 0] : tensor<8x4xf32> -> tensor<4x8xf32>
  %i = blk.permute %x order = [0, 1] : tensor<4x8xf32> -> tensor<4x8xf32>
  return %u, %i : tensor<4x8xf32>, tensor<4x8xf32>
}

// Two permutations compose: result dim i is the inner result's dim
// order[i], which is x's dim inner[order[i]].
// CHECK-LABEL: func.func @permute_of_permute
// CHECK-SAME:    (%[[X:.*]]: tensor<2x4x8xf32>)
// CHECK-NEXT:    %[[P:.*]] = blk.permute %[[X]] order = [0, 2, 1] : tensor<2x4x8xf32> -> tensor<2x8x4xf32>
// CHECK-NEXT:    return %[[P]]
func.func @permute_of_permute(%x: tensor<2x4x8xf32>) -> tensor<2x8x4xf32> {
  %a = blk.permute %x order = [1, 2, 0] : tensor<2x4x8xf32> -> tensor<4x8x2xf32>
  %b = blk.permute %a order = [2, 1, 0] : tensor<4x8x2xf32> -> tensor<2x8x4xf32>
  return %b : tensor<2x8x4xf32>
}

// Shape ops of splats are splats; split(join a, b) is (a, b).
// CHECK-LABEL: func.func @splats_and_split_of_join
// CHECK-SAME:    (%[[S:.*]]: f32, %[[A:.*]]: tensor<16xi8>, %[[B:.*]]: tensor<16xi8>)
// CHECK-NEXT:    %[[C:.*]] = arith.constant dense<1.500000e+00> : tensor<8x4xf32>
// CHECK-NEXT:    %[[R:.*]] = blk.splat %[[S]] : f32 -> tensor<4x8xf32>
// CHECK-NEXT:    %[[T:.*]] = blk.splat %[[S]] : f32 -> tensor<8x4xf32>
// CHECK-NEXT:    return %[[R]], %[[T]], %[[C]], %[[B]], %[[A]]
func.func @splats_and_split_of_join(%s: f32, %a: tensor<16xi8>, %b: tensor<16xi8>)
    -> (tensor<4x8xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<16xi8>, tensor<16xi8>) {
  %x = blk.splat %s : f32 -> tensor<32xf32>
  %r = blk.reshape %x : tensor<32xf32> -> tensor<4x8xf32>
  %t = blk.permute %r order = [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  %c = arith.constant dense<1.5> : tensor<32xf32>
  %cr = blk.reshape %c : tensor<32xf32> -> tensor<4x8xf32>
  %ct = blk.permute %cr order = [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  %j = blk.join %a, %b : tensor<16xi8> -> tensor<16x2xi8>
  %l, %h = blk.split %j : tensor<16x2xi8> -> tensor<16xi8>
  return %r, %t, %ct, %h, %l : tensor<4x8xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<16xi8>, tensor<16xi8>
}
