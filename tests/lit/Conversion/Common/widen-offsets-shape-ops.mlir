// RUN: blockjit-opt %s --blk-widen-offsets --canonicalize | FileCheck %s

// Offsets that go through reshape, permute or join are widened through them:
// the same moves of the i64 elements, so `row * stride` cannot wrap at 2^31
// before a transpose. The i32 shape ops are then dead.

// CHECK-LABEL: func.func @transposed_offsets(
// CHECK-SAME:    %[[IN:[^:]*]]: !blk.ptr<f32>, %[[STRIDE:[^:]*]]: i32)
// CHECK-DAG:     %[[STRIDE64:.*]] = arith.extsi %[[STRIDE]] : i32 to i64
// CHECK-DAG:     %[[R64:.*]] = arith.extsi %{{.*}} : tensor<32xi32> to tensor<32xi64>
// CHECK:         %[[ROWS:.*]] = arith.muli %[[R64]], %{{.*}} overflow<nsw> : tensor<32xi64>
// CHECK:         %[[TILE:.*]] = blk.reshape %[[ROWS]] : tensor<32xi64> -> tensor<4x8xi64>
// CHECK:         %[[T:.*]] = blk.permute %[[TILE]] order = [1, 0] : tensor<4x8xi64> -> tensor<8x4xi64>
// CHECK:         %[[J:.*]] = blk.join %[[T]], %[[T]] : tensor<8x4xi64> -> tensor<8x4x2xi64>
// CHECK:         blk.addptr %{{.*}}, %[[J]] : tensor<8x4x2x!blk.ptr<f32>>, tensor<8x4x2xi64>
// CHECK-NOT:     blk.permute %{{.*}} : tensor<4x8xi32>
func.func @transposed_offsets(%in: !blk.ptr<f32>, %stride: i32) {
  %r = blk.make_range 0 to 32 : tensor<32xi32>
  %s = blk.splat %stride : i32 -> tensor<32xi32>
  %rows = arith.muli %r, %s : tensor<32xi32>
  %tile = blk.reshape %rows : tensor<32xi32> -> tensor<4x8xi32>
  %t = blk.permute %tile order = [1, 0] : tensor<4x8xi32> -> tensor<8x4xi32>
  %j = blk.join %t, %t : tensor<8x4xi32> -> tensor<8x4x2xi32>
  %base = blk.splat %in : !blk.ptr<f32> -> tensor<8x4x2x!blk.ptr<f32>>
  %ptrs = blk.addptr %base, %j : tensor<8x4x2x!blk.ptr<f32>>, tensor<8x4x2xi32>
  %x = blk.load %ptrs : tensor<8x4x2x!blk.ptr<f32>>
  blk.store %ptrs, %x : tensor<8x4x2x!blk.ptr<f32>>
  return
}
