// RUN: blockjit-opt %s | blockjit-opt | FileCheck %s
// RUN: blockjit-opt %s --mlir-print-op-generic | blockjit-opt | FileCheck %s

// CHECK-LABEL: func.func @shape_ops
// CHECK-SAME:    (%[[X:.*]]: tensor<32xf32>, %[[P:.*]]: tensor<4x8x!blk.ptr<i8>>)
// CHECK-NEXT:    %[[R:.*]] = blk.reshape %[[X]] : tensor<32xf32> -> tensor<4x8xf32>
// CHECK-NEXT:    %[[T:.*]] = blk.permute %[[R]] order = [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
// CHECK-NEXT:    %[[Q:.*]] = blk.permute %[[P]] order = [1, 0] : tensor<4x8x!blk.ptr<i8>> -> tensor<8x4x!blk.ptr<i8>>
// CHECK-NEXT:    %[[J:.*]] = blk.join %[[X]], %[[X]] : tensor<32xf32> -> tensor<32x2xf32>
// CHECK-NEXT:    %[[L:.*]], %[[H:.*]] = blk.split %[[J]] : tensor<32x2xf32> -> tensor<32xf32>
// CHECK-NEXT:    return %[[T]], %[[Q]], %[[L]], %[[H]]
func.func @shape_ops(%x: tensor<32xf32>, %p: tensor<4x8x!blk.ptr<i8>>)
    -> (tensor<8x4xf32>, tensor<8x4x!blk.ptr<i8>>, tensor<32xf32>, tensor<32xf32>) {
  %r = blk.reshape %x : tensor<32xf32> -> tensor<4x8xf32>
  %t = blk.permute %r order = [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  %q = blk.permute %p order = [1, 0] : tensor<4x8x!blk.ptr<i8>> -> tensor<8x4x!blk.ptr<i8>>
  %j = blk.join %x, %x : tensor<32xf32> -> tensor<32x2xf32>
  %a, %b = blk.split %j : tensor<32x2xf32> -> tensor<32xf32>
  return %t, %q, %a, %b : tensor<8x4xf32>, tensor<8x4x!blk.ptr<i8>>, tensor<32xf32>, tensor<32xf32>
}

// A rank-3 permute (the CPU target runs any rank).
// CHECK-LABEL: func.func @permute_3d
// CHECK:         blk.permute %{{.*}} order = [2, 0, 1] : tensor<2x4x8xi1> -> tensor<8x2x4xi1>
func.func @permute_3d(%x: tensor<2x4x8xi1>) -> tensor<8x2x4xi1> {
  %t = blk.permute %x order = [2, 0, 1] : tensor<2x4x8xi1> -> tensor<8x2x4xi1>
  return %t : tensor<8x2x4xi1>
}
