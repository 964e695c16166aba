// RUN: blockjit-opt %s | blockjit-opt | FileCheck %s
// RUN: blockjit-opt %s --mlir-print-op-generic | blockjit-opt | FileCheck %s

// CHECK-LABEL: func.func @broadcast_rows
// CHECK-SAME:    (%[[X:.*]]: tensor<1x64xf32>)
// CHECK-NEXT:    %[[B:.*]] = blk.broadcast %[[X]] : tensor<1x64xf32> -> tensor<32x64xf32>
// CHECK-NEXT:    return %[[B]]
func.func @broadcast_rows(%x: tensor<1x64xf32>) -> tensor<32x64xf32> {
  %b = blk.broadcast %x : tensor<1x64xf32> -> tensor<32x64xf32>
  return %b : tensor<32x64xf32>
}

// CHECK-LABEL: func.func @broadcast_cols
// CHECK:         blk.broadcast %{{.*}} : tensor<32x1xi32> -> tensor<32x64xi32>
func.func @broadcast_cols(%x: tensor<32x1xi32>) -> tensor<32x64xi32> {
  %b = blk.broadcast %x : tensor<32x1xi32> -> tensor<32x64xi32>
  return %b : tensor<32x64xi32>
}

// Both dimensions stretch; 1-D and 3-D blocks; blocks of pointers and i1.
// CHECK-LABEL: func.func @broadcast_misc
// CHECK:         blk.broadcast %{{.*}} : tensor<1x1xf16> -> tensor<16x8xf16>
// CHECK:         blk.broadcast %{{.*}} : tensor<1xbf16> -> tensor<256xbf16>
// CHECK:         blk.broadcast %{{.*}} : tensor<2x1x4xi1> -> tensor<2x8x4xi1>
// CHECK:         blk.broadcast %{{.*}} : tensor<1x64x!blk.ptr<f32>> -> tensor<32x64x!blk.ptr<f32>>
func.func @broadcast_misc(%a: tensor<1x1xf16>, %b: tensor<1xbf16>, %c: tensor<2x1x4xi1>,
                          %p: tensor<1x64x!blk.ptr<f32>>) {
  %0 = blk.broadcast %a : tensor<1x1xf16> -> tensor<16x8xf16>
  %1 = blk.broadcast %b : tensor<1xbf16> -> tensor<256xbf16>
  %2 = blk.broadcast %c : tensor<2x1x4xi1> -> tensor<2x8x4xi1>
  %3 = blk.broadcast %p : tensor<1x64x!blk.ptr<f32>> -> tensor<32x64x!blk.ptr<f32>>
  return
}

// A same-shape broadcast is valid and is kept by a plain round trip.
// CHECK-LABEL: func.func @broadcast_identity
// CHECK:         blk.broadcast %{{.*}} : tensor<4x4xf32> -> tensor<4x4xf32>
func.func @broadcast_identity(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %b = blk.broadcast %x : tensor<4x4xf32> -> tensor<4x4xf32>
  return %b : tensor<4x4xf32>
}
