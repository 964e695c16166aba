// RUN: blockjit-opt %s --blk-widen-offsets --canonicalize | FileCheck %s

// `row * stride` in i32 wraps at 2^31 elements; blk-widen-offsets gives each
// addptr the same offset computed in i64 from sign-extended leaves. The i32
// ops stay only where something else uses them (the mask here).

// CHECK-LABEL: func.func @row_offsets(
// CHECK-SAME:    %[[IN:[^:]*]]: !blk.ptr<f32>, %[[STRIDE:[^:]*]]: i32, %[[ROW:[^:]*]]: i32, %[[N:[^:]*]]: i32)
// CHECK-DAG:     %[[STRIDE64:.*]] = arith.extsi %[[STRIDE]] : i32 to i64
// CHECK-DAG:     %[[ROW64:.*]] = arith.extsi %[[ROW]] : i32 to i64
// CHECK-DAG:     %[[OFF64:.*]] = arith.muli %[[ROW64]], %[[STRIDE64]] overflow<nsw> : i64
// CHECK-DAG:     %[[COLS:.*]] = blk.make_range 0 to 128 : tensor<128xi32>
// CHECK-DAG:     %[[COLS64:.*]] = arith.extsi %[[COLS]] : tensor<128xi32> to tensor<128xi64>
// CHECK-DAG:     %[[MASK:.*]] = arith.cmpi slt, %[[COLS]], %{{.*}} : tensor<128xi32>
// CHECK:         blk.addptr %{{.*}}, %{{.*}} : tensor<128x!blk.ptr<f32>>, tensor<128xi64>
// CHECK-NOT:     arith.muli %[[ROW]], %[[STRIDE]]
func.func @row_offsets(%in: !blk.ptr<f32>, %stride: i32, %row: i32, %n: i32) {
  %off = arith.muli %row, %stride : i32
  %cols = blk.make_range 0 to 128 : tensor<128xi32>
  %off_b = blk.splat %off : i32 -> tensor<128xi32>
  %offs = arith.addi %off_b, %cols : tensor<128xi32>
  %n_b = blk.splat %n : i32 -> tensor<128xi32>
  %mask = arith.cmpi slt, %cols, %n_b : tensor<128xi32>
  %base = blk.splat %in : !blk.ptr<f32> -> tensor<128x!blk.ptr<f32>>
  %ptrs = blk.addptr %base, %offs : tensor<128x!blk.ptr<f32>>, tensor<128xi32>
  %x = blk.load %ptrs, %mask : tensor<128x!blk.ptr<f32>>
  blk.store %ptrs, %x, %mask : tensor<128x!blk.ptr<f32>>
  return
}

// Scalar pointers, subtraction, broadcasts and expand_dims are widened too;
// i64 offsets are left alone.
// CHECK-LABEL: func.func @shapes(
// CHECK:         arith.subi %{{.*}}, %{{.*}} overflow<nsw> : i64
// CHECK:         blk.addptr %{{.*}}, %{{.*}} : !blk.ptr<f32>, i64
// CHECK:         blk.expand_dims %{{.*}} axis = 0 : tensor<4xi64> -> tensor<1x4xi64>
// CHECK:         blk.broadcast %{{.*}} : tensor<1x4xi64> -> tensor<2x4xi64>
// CHECK:         blk.addptr %{{.*}}, %{{.*}} : tensor<2x4x!blk.ptr<f32>>, tensor<2x4xi64>
// CHECK:         blk.addptr %{{.*}}, %{{.*}} : !blk.ptr<f32>, i64
func.func @shapes(%p: !blk.ptr<f32>, %a: i32, %b: i32, %c: i64) {
  %d = arith.subi %a, %b : i32
  %q = blk.addptr %p, %d : !blk.ptr<f32>, i32
  %r = blk.make_range 0 to 4 : tensor<4xi32>
  %e = blk.expand_dims %r axis = 0 : tensor<4xi32> -> tensor<1x4xi32>
  %bc = blk.broadcast %e : tensor<1x4xi32> -> tensor<2x4xi32>
  %qs = blk.splat %q : !blk.ptr<f32> -> tensor<2x4x!blk.ptr<f32>>
  %ptrs = blk.addptr %qs, %bc : tensor<2x4x!blk.ptr<f32>>, tensor<2x4xi32>
  %x = blk.load %ptrs : tensor<2x4x!blk.ptr<f32>>
  blk.store %ptrs, %x : tensor<2x4x!blk.ptr<f32>>
  %w = blk.addptr %p, %c : !blk.ptr<f32>, i64
  %y = blk.load %w : !blk.ptr<f32>
  blk.store %w, %y : !blk.ptr<f32>
  return
}
