// RUN: blockjit-opt %s | blockjit-opt | FileCheck %s
// RUN: blockjit-opt %s --mlir-print-op-generic | blockjit-opt | FileCheck %s

// x[None, :] and x[:, None] of a 1-D block.
// CHECK-LABEL: func.func @expand_1d
// CHECK-SAME:    (%[[X:.*]]: tensor<64xi32>)
// CHECK-NEXT:    %[[R:.*]] = blk.expand_dims %[[X]] axis = 0 : tensor<64xi32> -> tensor<1x64xi32>
// CHECK-NEXT:    %[[C:.*]] = blk.expand_dims %[[X]] axis = 1 : tensor<64xi32> -> tensor<64x1xi32>
// CHECK-NEXT:    return %[[R]], %[[C]]
func.func @expand_1d(%x: tensor<64xi32>) -> (tensor<1x64xi32>, tensor<64x1xi32>) {
  %r = blk.expand_dims %x axis = 0 : tensor<64xi32> -> tensor<1x64xi32>
  %c = blk.expand_dims %x axis = 1 : tensor<64xi32> -> tensor<64x1xi32>
  return %r, %c : tensor<1x64xi32>, tensor<64x1xi32>
}

// Every axis of a 2-D block, including the one past the last dimension.
// CHECK-LABEL: func.func @expand_2d
// CHECK:         blk.expand_dims %{{.*}} axis = 0 : tensor<4x8xf16> -> tensor<1x4x8xf16>
// CHECK:         blk.expand_dims %{{.*}} axis = 1 : tensor<4x8xf16> -> tensor<4x1x8xf16>
// CHECK:         blk.expand_dims %{{.*}} axis = 2 : tensor<4x8xf16> -> tensor<4x8x1xf16>
func.func @expand_2d(%x: tensor<4x8xf16>) {
  %0 = blk.expand_dims %x axis = 0 : tensor<4x8xf16> -> tensor<1x4x8xf16>
  %1 = blk.expand_dims %x axis = 1 : tensor<4x8xf16> -> tensor<4x1x8xf16>
  %2 = blk.expand_dims %x axis = 2 : tensor<4x8xf16> -> tensor<4x8x1xf16>
  return
}

// Blocks of pointers, chained with broadcast (the usual 2-D offsets idiom).
// CHECK-LABEL: func.func @expand_ptrs
// CHECK:         %[[E:.*]] = blk.expand_dims %{{.*}} axis = 1 : tensor<16x!blk.ptr<f32>> -> tensor<16x1x!blk.ptr<f32>>
// CHECK-NEXT:    blk.broadcast %[[E]] : tensor<16x1x!blk.ptr<f32>> -> tensor<16x32x!blk.ptr<f32>>
func.func @expand_ptrs(%p: tensor<16x!blk.ptr<f32>>) -> tensor<16x32x!blk.ptr<f32>> {
  %e = blk.expand_dims %p axis = 1 : tensor<16x!blk.ptr<f32>> -> tensor<16x1x!blk.ptr<f32>>
  %b = blk.broadcast %e : tensor<16x1x!blk.ptr<f32>> -> tensor<16x32x!blk.ptr<f32>>
  return %b : tensor<16x32x!blk.ptr<f32>>
}
