// RUN: blockjit-opt %s -canonicalize | FileCheck %s

// expand_dims(splat x) -> splat x of the expanded shape.
// CHECK-LABEL: func.func @expand_of_splat
// CHECK-SAME:    (%[[X:.*]]: f32)
// CHECK-NEXT:    %[[S:.*]] = blk.splat %[[X]] : f32 -> tensor<1x64xf32>
// CHECK-NOT:     blk.expand_dims
// CHECK-NEXT:    return %[[S]] : tensor<1x64xf32>
func.func @expand_of_splat(%x: f32) -> tensor<1x64xf32> {
  %s = blk.splat %x : f32 -> tensor<64xf32>
  %e = blk.expand_dims %s axis = 0 : tensor<64xf32> -> tensor<1x64xf32>
  return %e : tensor<1x64xf32>
}

// CHECK-LABEL: func.func @expand_of_splat_axis1
// CHECK-SAME:    (%[[P:.*]]: !blk.ptr<f16>)
// CHECK-NEXT:    %[[S:.*]] = blk.splat %[[P]] : !blk.ptr<f16> -> tensor<64x1x!blk.ptr<f16>>
// CHECK-NEXT:    return %[[S]]
func.func @expand_of_splat_axis1(%p: !blk.ptr<f16>) -> tensor<64x1x!blk.ptr<f16>> {
  %s = blk.splat %p : !blk.ptr<f16> -> tensor<64x!blk.ptr<f16>>
  %e = blk.expand_dims %s axis = 1 : tensor<64x!blk.ptr<f16>> -> tensor<64x1x!blk.ptr<f16>>
  return %e : tensor<64x1x!blk.ptr<f16>>
}

// expand_dims then broadcast of a splat: a single splat of the final shape.
// CHECK-LABEL: func.func @expand_broadcast_of_splat
// CHECK-SAME:    (%[[X:.*]]: i32)
// CHECK-NEXT:    %[[S:.*]] = blk.splat %[[X]] : i32 -> tensor<16x32xi32>
// CHECK-NEXT:    return %[[S]]
func.func @expand_broadcast_of_splat(%x: i32) -> tensor<16x32xi32> {
  %s = blk.splat %x : i32 -> tensor<32xi32>
  %e = blk.expand_dims %s axis = 0 : tensor<32xi32> -> tensor<1x32xi32>
  %b = blk.broadcast %e : tensor<1x32xi32> -> tensor<16x32xi32>
  return %b : tensor<16x32xi32>
}
