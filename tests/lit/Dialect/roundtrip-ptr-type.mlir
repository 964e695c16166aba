// RUN: blockjit-opt %s | blockjit-opt | FileCheck %s
// RUN: blockjit-opt %s --mlir-print-op-generic | blockjit-opt | FileCheck %s

// !blk.ptr of every integer and float pointee kind, as function arguments.
// CHECK-LABEL: func.func @pointees
// CHECK-SAME:    !blk.ptr<f32>, %{{.*}}: !blk.ptr<f16>, %{{.*}}: !blk.ptr<bf16>, %{{.*}}: !blk.ptr<f64>
// CHECK-SAME:    !blk.ptr<i1>, %{{.*}}: !blk.ptr<i8>, %{{.*}}: !blk.ptr<i32>, %{{.*}}: !blk.ptr<i64>
// CHECK-SAME:    !blk.ptr<f8E4M3FN>
func.func @pointees(%a: !blk.ptr<f32>, %b: !blk.ptr<f16>, %c: !blk.ptr<bf16>, %d: !blk.ptr<f64>,
                    %e: !blk.ptr<i1>, %f: !blk.ptr<i8>, %g: !blk.ptr<i32>, %h: !blk.ptr<i64>,
                    %i: !blk.ptr<f8E4M3FN>) {
  return
}

// Signed/unsigned integer pointees are integers too.
// CHECK-LABEL: func.func @signedness
// CHECK-SAME:    !blk.ptr<si32>, %{{.*}}: !blk.ptr<ui8>
func.func @signedness(%a: !blk.ptr<si32>, %b: !blk.ptr<ui8>) {
  return
}

// Tensors of pointers of rank 1..3, as arguments and results.
// CHECK-LABEL: func.func @ptr_tensors
// CHECK-SAME:    (%[[A:.*]]: tensor<128x!blk.ptr<f32>>, %[[B:.*]]: tensor<16x32x!blk.ptr<f16>>, %[[C:.*]]: tensor<2x4x8x!blk.ptr<i32>>)
// CHECK-SAME:    -> (tensor<128x!blk.ptr<f32>>, tensor<16x32x!blk.ptr<f16>>, tensor<2x4x8x!blk.ptr<i32>>)
// CHECK-NEXT:    return %[[A]], %[[B]], %[[C]]
func.func @ptr_tensors(%a: tensor<128x!blk.ptr<f32>>, %b: tensor<16x32x!blk.ptr<f16>>, %c: tensor<2x4x8x!blk.ptr<i32>>)
    -> (tensor<128x!blk.ptr<f32>>, tensor<16x32x!blk.ptr<f16>>, tensor<2x4x8x!blk.ptr<i32>>) {
  return %a, %b, %c : tensor<128x!blk.ptr<f32>>, tensor<16x32x!blk.ptr<f16>>, tensor<2x4x8x!blk.ptr<i32>>
}

// A pointer returned from a function and passed through a call.
// CHECK-LABEL: func.func @callee
// CHECK-SAME:    (%[[P:.*]]: !blk.ptr<bf16>) -> !blk.ptr<bf16>
// CHECK-LABEL: func.func @caller
// CHECK:         call @callee(%{{.*}}) : (!blk.ptr<bf16>) -> !blk.ptr<bf16>
func.func @callee(%p: !blk.ptr<bf16>) -> !blk.ptr<bf16> {
  return %p : !blk.ptr<bf16>
}
func.func @caller(%p: !blk.ptr<bf16>) -> !blk.ptr<bf16> {
  %r = func.call @callee(%p) : (!blk.ptr<bf16>) -> !blk.ptr<bf16>
  return %r : !blk.ptr<bf16>
}

// Pointers carried through scf.for iter_args and selected with arith.select.
// CHECK-LABEL: func.func @ptr_in_regions
// CHECK:         scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[IT:.*]] = %{{.*}}) -> (!blk.ptr<f32>)
// CHECK:           %[[NEXT:.*]] = blk.addptr %[[IT]], %{{.*}} : !blk.ptr<f32>, i32
// CHECK:           scf.yield %[[NEXT]] : !blk.ptr<f32>
// CHECK:         arith.select %{{.*}}, %{{.*}}, %{{.*}} : !blk.ptr<f32>
func.func @ptr_in_regions(%p: !blk.ptr<f32>, %n: index, %c: i1) -> !blk.ptr<f32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : i32
  %end = scf.for %i = %c0 to %n step %c1 iter_args(%it = %p) -> (!blk.ptr<f32>) {
    %next = blk.addptr %it, %c4 : !blk.ptr<f32>, i32
    scf.yield %next : !blk.ptr<f32>
  }
  %r = arith.select %c, %p, %end : !blk.ptr<f32>
  return %r : !blk.ptr<f32>
}

// !blk.ptr implements MemRefElementTypeInterface, so it can be a memref element.
// CHECK-LABEL: func.func @ptr_nested
// CHECK-SAME:    memref<4x!blk.ptr<f32>>
func.func @ptr_nested(%m: memref<4x!blk.ptr<f32>>) {
  return
}
