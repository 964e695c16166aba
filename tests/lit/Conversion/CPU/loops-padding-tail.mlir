// RUN: blockjit-opt %s --convert-blk-to-loops | FileCheck %s

// A masked 1-D load whose mask is a prefix (`range < n`) and whose `other`
// is the same everywhere leaves a buffer whose tail [end, 16) is all
// `other`. A buffered op computed elementwise from it (and from values the
// same everywhere) computes only [0, end) and fills the tail with its value
// at `other`, computed once: exp(-inf - max) is not evaluated per padding
// element (but up to the next whole vector, which spares LLVM's scalar
// remainder loop). Its fused sum still adds the tail's elements, so results are
// those of computing every element.

// CHECK-LABEL: func.func @softmax_row
// CHECK-SAME:    (%{{[^:]*}}: !blk.ptr<f32>, %{{[^:]*}}: !blk.ptr<f32>, %[[N:[^:]*]]: i32)
// CHECK-DAG:     %[[E:.*]] = memref.alloca() {alignment = 64 : i64} : memref<16xf32>
// CHECK-DAG:     %[[X:.*]] = memref.alloca() {alignment = 64 : i64} : memref<16xf32>
// CHECK:         %[[END:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK:         scf.for %{{.*}} = %{{.*}} to %[[END]] step
// CHECK:           blk.load
// CHECK:         scf.for %{{.*}} = %[[END]] to %[[C16:.*]] step
// CHECK:         %[[MAX:.*]] = scf.if
//                the tail's element, once: exp(-inf - max)
// CHECK:         %[[T:.*]] = arith.subf %[[NINF:.*]], %[[MAX]] : f32
// CHECK-NEXT:    %[[FILL:.*]] = math.exp %[[T]] : f32
//                computed up to end rounded up to a whole vector (16 f32;
//                the buffer's padding there gives the fill itself)
// CHECK:         %[[UP:.*]] = arith.addi %[[END]], %{{.*}} : index
// CHECK-NEXT:    %[[ROUNDED:.*]] = arith.andi %[[UP]], %{{.*}} : index
// CHECK:         %[[VEND:.*]] = arith.minsi %[[ROUNDED]], %{{.*}} : index
// CHECK:         %[[S0:.*]] = scf.for %[[I:[^ ]*]] = %{{.*}} to %[[VEND]] step %{{.*}} iter_args
// CHECK-NEXT:      memref.load %[[X]][%[[I]]]
// CHECK-NEXT:      arith.subf
// CHECK-NEXT:      math.exp
// CHECK-NEXT:      memref.store %{{.*}}, %[[E]][%[[I]]]
// CHECK:         %[[S:.*]] = scf.for %[[J:[^ ]*]] = %[[VEND]] to %{{.*}} step %{{.*}} iter_args(%[[ACC:[^ ]*]] = %[[S0]]) -> (f32) {
// CHECK-NEXT:      memref.store %[[FILL]], %[[E]][%[[J]]] : memref<16xf32>
// CHECK-NEXT:      arith.addf %[[ACC]], %[[FILL]] fastmath<reassoc> : f32
// CHECK-NOT:       math.exp
// CHECK:         }
// CHECK:         arith.divf %{{.*}}, %[[S]] : f32
func.func @softmax_row(%in: !blk.ptr<f32>, %out: !blk.ptr<f32>, %n: i32) {
  %r = blk.make_range 0 to 16 : tensor<16xi32>
  %nb = blk.splat %n : i32 -> tensor<16xi32>
  %mask = arith.cmpi slt, %r, %nb : tensor<16xi32>
  %ninf = arith.constant dense<0xFF800000> : tensor<16xf32>
  %base = blk.splat %in : !blk.ptr<f32> -> tensor<16x!blk.ptr<f32>>
  %p = blk.addptr %base, %r : tensor<16x!blk.ptr<f32>>, tensor<16xi32>
  %x = blk.load %p, %mask, %ninf : tensor<16x!blk.ptr<f32>>
  %m = blk.reduce max %x axis = 0 : tensor<16xf32> -> f32
  %mb = blk.splat %m : f32 -> tensor<16xf32>
  %d = arith.subf %x, %mb : tensor<16xf32>
  %e = math.exp %d : tensor<16xf32>
  %s = blk.reduce sum %e axis = 0 : tensor<16xf32> -> f32
  %sb = blk.splat %s : f32 -> tensor<16xf32>
  %y = arith.divf %e, %sb : tensor<16xf32>
  %ob = blk.splat %out : !blk.ptr<f32> -> tensor<16x!blk.ptr<f32>>
  %op = blk.addptr %ob, %r : tensor<16x!blk.ptr<f32>>, tensor<16xi32>
  blk.store %op, %y, %mask : tensor<16x!blk.ptr<f32>>
  return
}

// A per-lane `other` (here the lane index as a float) gives no tail: every
// element of exp is computed in one loop.
// CHECK-LABEL: func.func @other_per_lane
// CHECK:         scf.for %{{.*}} = %{{.*}} to %[[C16:.*]] step %{{.*}} iter_args
// CHECK:           math.exp
// CHECK-NOT:     math.exp
func.func @other_per_lane(%in: !blk.ptr<f32>, %out: !blk.ptr<f32>, %n: i32) {
  %r = blk.make_range 0 to 16 : tensor<16xi32>
  %nb = blk.splat %n : i32 -> tensor<16xi32>
  %mask = arith.cmpi slt, %r, %nb : tensor<16xi32>
  %other = arith.sitofp %r : tensor<16xi32> to tensor<16xf32>
  %base = blk.splat %in : !blk.ptr<f32> -> tensor<16x!blk.ptr<f32>>
  %p = blk.addptr %base, %r : tensor<16x!blk.ptr<f32>>, tensor<16xi32>
  %x = blk.load %p, %mask, %other : tensor<16x!blk.ptr<f32>>
  %e = math.exp %x : tensor<16xf32>
  %s = blk.reduce sum %e axis = 0 : tensor<16xf32> -> f32
  %sb = blk.splat %s : f32 -> tensor<16xf32>
  %y = arith.divf %e, %sb : tensor<16xf32>
  %ob = blk.splat %out : !blk.ptr<f32> -> tensor<16x!blk.ptr<f32>>
  %op = blk.addptr %ob, %r : tensor<16x!blk.ptr<f32>>, tensor<16xi32>
  blk.store %op, %y : tensor<16x!blk.ptr<f32>>
  return
}
