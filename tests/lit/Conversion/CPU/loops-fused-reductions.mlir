// RUN: blockjit-opt %s --convert-blk-to-loops | FileCheck %s

// A reduction of all of a 1-D block is computed by the loop that stores the
// block (load or buffered op), in the block where the value is defined; a
// reduction in another block (here inside a loop, which may run any number
// of times) keeps a loop of its own over the buffer.

// CHECK-LABEL: func.func @reduce_in_inner_block
// CHECK:         %[[BUF:.*]] = memref.alloca() {alignment = 64 : i64} : memref<16xf32>
//                the load: no accumulator
// CHECK:         scf.for %[[I:[^ ]*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:           blk.load
// CHECK-NEXT:      memref.store %{{.*}}, %[[BUF]][%[[I]]] : memref<16xf32>
// CHECK-NEXT:    }
// CHECK:         scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} : i32 {
// CHECK:           %[[S:.*]] = scf.for %[[K:[^ ]*]] = {{.*}} iter_args
// CHECK-NEXT:        memref.load %[[BUF]][%[[K]]] : memref<16xf32>
// CHECK-NEXT:        arith.addf
// CHECK:           blk.store %{{.*}}, %[[S]] : !blk.ptr<f32>
func.func @reduce_in_inner_block(%in: !blk.ptr<f32>, %out: !blk.ptr<f32>, %n: i32) {
  %r = blk.make_range 0 to 16 : tensor<16xi32>
  %base = blk.splat %in : !blk.ptr<f32> -> tensor<16x!blk.ptr<f32>>
  %p = blk.addptr %base, %r : tensor<16x!blk.ptr<f32>>, tensor<16xi32>
  %x = blk.load %p : tensor<16x!blk.ptr<f32>>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %i = %c0 to %n step %c1 : i32 {
    %s = blk.reduce sum %x axis = 0 : tensor<16xf32> -> f32
    %o = blk.addptr %out, %i : !blk.ptr<f32>, i32
    blk.store %o, %s : !blk.ptr<f32>
  }
  return
}
