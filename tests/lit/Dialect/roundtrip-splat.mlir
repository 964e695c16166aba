// RUN: blockjit-opt %s | blockjit-opt | FileCheck %s
// RUN: blockjit-opt %s --mlir-print-op-generic | blockjit-opt | FileCheck %s

// CHECK-LABEL: func.func @splat_scalars
// CHECK-SAME:    (%[[F:.*]]: f32, %[[H:.*]]: f16, %[[I:.*]]: i32, %[[B:.*]]: i1, %[[X:.*]]: index)
// CHECK-NEXT:    blk.splat %[[F]] : f32 -> tensor<128xf32>
// CHECK-NEXT:    blk.splat %[[H]] : f16 -> tensor<4x8xf16>
// CHECK-NEXT:    blk.splat %[[I]] : i32 -> tensor<1xi32>
// CHECK-NEXT:    blk.splat %[[B]] : i1 -> tensor<2x2x2xi1>
// CHECK-NEXT:    blk.splat %[[X]] : index -> tensor<16xindex>
func.func @splat_scalars(%f: f32, %h: f16, %i: i32, %b: i1, %x: index) {
  %0 = blk.splat %f : f32 -> tensor<128xf32>
  %1 = blk.splat %h : f16 -> tensor<4x8xf16>
  %2 = blk.splat %i : i32 -> tensor<1xi32>
  %3 = blk.splat %b : i1 -> tensor<2x2x2xi1>
  %4 = blk.splat %x : index -> tensor<16xindex>
  return
}

// Splatting a pointer gives a block of pointers.
// CHECK-LABEL: func.func @splat_ptr
// CHECK-SAME:    (%[[P:.*]]: !blk.ptr<bf16>)
// CHECK-NEXT:    %[[S:.*]] = blk.splat %[[P]] : !blk.ptr<bf16> -> tensor<64x!blk.ptr<bf16>>
// CHECK-NEXT:    return %[[S]] : tensor<64x!blk.ptr<bf16>>
func.func @splat_ptr(%p: !blk.ptr<bf16>) -> tensor<64x!blk.ptr<bf16>> {
  %s = blk.splat %p : !blk.ptr<bf16> -> tensor<64x!blk.ptr<bf16>>
  return %s : tensor<64x!blk.ptr<bf16>>
}

// A splat of a constant survives a plain round trip (only -canonicalize folds it).
// CHECK-LABEL: func.func @splat_const_no_fold_without_canonicalize
// CHECK:         %[[C:.*]] = arith.constant 2.000000e+00 : f32
// CHECK-NEXT:    blk.splat %[[C]] : f32 -> tensor<8xf32>
func.func @splat_const_no_fold_without_canonicalize() -> tensor<8xf32> {
  %c = arith.constant 2.0 : f32
  %s = blk.splat %c : f32 -> tensor<8xf32>
  return %s : tensor<8xf32>
}
