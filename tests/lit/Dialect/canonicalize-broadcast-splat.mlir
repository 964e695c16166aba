// RUN: blockjit-opt %s -canonicalize | FileCheck %s

// broadcast(splat x) -> splat x of the broadcast shape.
// CHECK-LABEL: func.func @broadcast_of_splat
// CHECK-SAME:    (%[[X:.*]]: f32)
// CHECK-NEXT:    %[[S:.*]] = blk.splat %[[X]] : f32 -> tensor<32x64xf32>
// CHECK-NOT:     blk.broadcast
// CHECK-NEXT:    return %[[S]] : tensor<32x64xf32>
func.func @broadcast_of_splat(%x: f32) -> tensor<32x64xf32> {
  %s = blk.splat %x : f32 -> tensor<1x64xf32>
  %b = blk.broadcast %s : tensor<1x64xf32> -> tensor<32x64xf32>
  return %b : tensor<32x64xf32>
}

// Works for pointers: a broadcast block of one base pointer is a splat.
// CHECK-LABEL: func.func @broadcast_of_splat_ptr
// CHECK-SAME:    (%[[P:.*]]: !blk.ptr<bf16>)
// CHECK-NEXT:    %[[S:.*]] = blk.splat %[[P]] : !blk.ptr<bf16> -> tensor<16x8x!blk.ptr<bf16>>
// CHECK-NEXT:    return %[[S]]
func.func @broadcast_of_splat_ptr(%p: !blk.ptr<bf16>) -> tensor<16x8x!blk.ptr<bf16>> {
  %s = blk.splat %p : !blk.ptr<bf16> -> tensor<1x1x!blk.ptr<bf16>>
  %b = blk.broadcast %s : tensor<1x1x!blk.ptr<bf16>> -> tensor<16x8x!blk.ptr<bf16>>
  return %b : tensor<16x8x!blk.ptr<bf16>>
}

// The small splat stays when it has another use.
// CHECK-LABEL: func.func @splat_kept_for_other_use
// CHECK-SAME:    (%[[X:.*]]: i32)
// CHECK-DAG:     %[[SMALL:.*]] = blk.splat %[[X]] : i32 -> tensor<4x1xi32>
// CHECK-DAG:     %[[BIG:.*]] = blk.splat %[[X]] : i32 -> tensor<4x8xi32>
// CHECK-NOT:     blk.broadcast
// CHECK:         return %[[SMALL]], %[[BIG]]
func.func @splat_kept_for_other_use(%x: i32) -> (tensor<4x1xi32>, tensor<4x8xi32>) {
  %s = blk.splat %x : i32 -> tensor<4x1xi32>
  %b = blk.broadcast %s : tensor<4x1xi32> -> tensor<4x8xi32>
  return %s, %b : tensor<4x1xi32>, tensor<4x8xi32>
}
