// RUN: blockjit-opt %s | blockjit-opt | FileCheck %s
// RUN: blockjit-opt %s --mlir-print-op-generic | blockjit-opt | FileCheck %s

// Scalar pointer, scalar offsets of several integer widths.
// CHECK-LABEL: func.func @addptr_scalar
// CHECK-SAME:    (%[[P:.*]]: !blk.ptr<f32>, %[[I:.*]]: i32, %[[L:.*]]: i64)
// CHECK-NEXT:    %[[A:.*]] = blk.addptr %[[P]], %[[I]] : !blk.ptr<f32>, i32
// CHECK-NEXT:    %[[B:.*]] = blk.addptr %[[A]], %[[L]] : !blk.ptr<f32>, i64
// CHECK-NEXT:    return %[[B]] : !blk.ptr<f32>
func.func @addptr_scalar(%p: !blk.ptr<f32>, %i: i32, %l: i64) -> !blk.ptr<f32> {
  %a = blk.addptr %p, %i : !blk.ptr<f32>, i32
  %b = blk.addptr %a, %l : !blk.ptr<f32>, i64
  return %b : !blk.ptr<f32>
}

// Block of pointers, block of offsets of the same shape.
// CHECK-LABEL: func.func @addptr_tensor
// CHECK:         %[[R:.*]] = blk.make_range 0 to 128 : tensor<128xi32>
// CHECK:         %[[S:.*]] = blk.splat %{{.*}} : !blk.ptr<f16> -> tensor<128x!blk.ptr<f16>>
// CHECK:         blk.addptr %[[S]], %[[R]] : tensor<128x!blk.ptr<f16>>, tensor<128xi32>
func.func @addptr_tensor(%p: !blk.ptr<f16>) -> tensor<128x!blk.ptr<f16>> {
  %r = blk.make_range 0 to 128 : tensor<128xi32>
  %s = blk.splat %p : !blk.ptr<f16> -> tensor<128x!blk.ptr<f16>>
  %a = blk.addptr %s, %r : tensor<128x!blk.ptr<f16>>, tensor<128xi32>
  return %a : tensor<128x!blk.ptr<f16>>
}

// 2-D blocks and i64 offsets; integer pointees.
// CHECK-LABEL: func.func @addptr_2d
// CHECK:         blk.addptr %{{.*}}, %{{.*}} : tensor<8x16x!blk.ptr<i32>>, tensor<8x16xi64>
// CHECK:         blk.addptr %{{.*}}, %{{.*}} : tensor<8x16x!blk.ptr<i8>>, tensor<8x16xi32>
func.func @addptr_2d(%p: tensor<8x16x!blk.ptr<i32>>, %o: tensor<8x16xi64>,
                     %q: tensor<8x16x!blk.ptr<i8>>, %o32: tensor<8x16xi32>) {
  %0 = blk.addptr %p, %o : tensor<8x16x!blk.ptr<i32>>, tensor<8x16xi64>
  %1 = blk.addptr %q, %o32 : tensor<8x16x!blk.ptr<i8>>, tensor<8x16xi32>
  return
}

// A zero offset is not folded away by a plain round trip.
// CHECK-LABEL: func.func @addptr_zero_kept
// CHECK:         blk.addptr %{{.*}}, %{{.*}} : !blk.ptr<bf16>, i32
func.func @addptr_zero_kept(%p: !blk.ptr<bf16>) -> !blk.ptr<bf16> {
  %c0 = arith.constant 0 : i32
  %a = blk.addptr %p, %c0 : !blk.ptr<bf16>, i32
  return %a : !blk.ptr<bf16>
}
