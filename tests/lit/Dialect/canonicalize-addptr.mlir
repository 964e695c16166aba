// RUN: blockjit-opt %s -canonicalize | FileCheck %s

// addptr p, 0 -> p (scalar pointer, i32 zero).
// CHECK-LABEL: func.func @scalar_zero
// CHECK-SAME:    (%[[P:.*]]: !blk.ptr<f32>)
// CHECK-NOT:     blk.addptr
// CHECK-NOT:     arith.constant
// CHECK:         return %[[P]] : !blk.ptr<f32>
func.func @scalar_zero(%p: !blk.ptr<f32>) -> !blk.ptr<f32> {
  %c0 = arith.constant 0 : i32
  %a = blk.addptr %p, %c0 : !blk.ptr<f32>, i32
  return %a : !blk.ptr<f32>
}

// ... with an i64 zero.
// CHECK-LABEL: func.func @scalar_zero_i64
// CHECK-SAME:    (%[[P:.*]]: !blk.ptr<bf16>)
// CHECK-NOT:     blk.addptr
// CHECK:         return %[[P]] : !blk.ptr<bf16>
func.func @scalar_zero_i64(%p: !blk.ptr<bf16>) -> !blk.ptr<bf16> {
  %c0 = arith.constant 0 : i64
  %a = blk.addptr %p, %c0 : !blk.ptr<bf16>, i64
  return %a : !blk.ptr<bf16>
}

// Block of pointers plus a dense splat-zero constant.
// CHECK-LABEL: func.func @tensor_dense_zero
// CHECK-SAME:    (%[[P:.*]]: tensor<128x!blk.ptr<f16>>)
// CHECK-NOT:     blk.addptr
// CHECK:         return %[[P]] : tensor<128x!blk.ptr<f16>>
func.func @tensor_dense_zero(%p: tensor<128x!blk.ptr<f16>>) -> tensor<128x!blk.ptr<f16>> {
  %z = arith.constant dense<0> : tensor<128xi32>
  %a = blk.addptr %p, %z : tensor<128x!blk.ptr<f16>>, tensor<128xi32>
  return %a : tensor<128x!blk.ptr<f16>>
}

// Block of pointers plus blk.splat of a zero: the splat folds to a constant,
// then the addptr folds away.
// CHECK-LABEL: func.func @tensor_splat_zero
// CHECK-SAME:    (%[[P:.*]]: tensor<4x8x!blk.ptr<i32>>)
// CHECK-NOT:     blk.splat
// CHECK-NOT:     blk.addptr
// CHECK:         return %[[P]] : tensor<4x8x!blk.ptr<i32>>
func.func @tensor_splat_zero(%p: tensor<4x8x!blk.ptr<i32>>) -> tensor<4x8x!blk.ptr<i32>> {
  %c0 = arith.constant 0 : i32
  %z = blk.splat %c0 : i32 -> tensor<4x8xi32>
  %a = blk.addptr %p, %z : tensor<4x8x!blk.ptr<i32>>, tensor<4x8xi32>
  return %a : tensor<4x8x!blk.ptr<i32>>
}

// A chain of zero offsets collapses entirely; the nonzero one stays.
// CHECK-LABEL: func.func @chain
// CHECK-SAME:    (%[[P:.*]]: !blk.ptr<f32>, %[[N:.*]]: i32)
// CHECK-NEXT:    %[[A:.*]] = blk.addptr %[[P]], %[[N]] : !blk.ptr<f32>, i32
// CHECK-NEXT:    return %[[A]] : !blk.ptr<f32>
func.func @chain(%p: !blk.ptr<f32>, %n: i32) -> !blk.ptr<f32> {
  %c0 = arith.constant 0 : i32
  %a = blk.addptr %p, %c0 : !blk.ptr<f32>, i32
  %b = blk.addptr %a, %n : !blk.ptr<f32>, i32
  %c = blk.addptr %b, %c0 : !blk.ptr<f32>, i32
  return %c : !blk.ptr<f32>
}

// A zero computed by arith (n - n) folds first, then the addptr.
// CHECK-LABEL: func.func @computed_zero
// CHECK-SAME:    (%[[P:.*]]: !blk.ptr<f32>, %{{.*}}: i32)
// CHECK-NOT:     blk.addptr
// CHECK:         return %[[P]] : !blk.ptr<f32>
func.func @computed_zero(%p: !blk.ptr<f32>, %n: i32) -> !blk.ptr<f32> {
  %z = arith.subi %n, %n : i32
  %a = blk.addptr %p, %z : !blk.ptr<f32>, i32
  return %a : !blk.ptr<f32>
}
