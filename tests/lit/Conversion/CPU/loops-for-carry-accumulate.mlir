// RUN: blockjit-opt %s --convert-blk-to-loops | FileCheck %s
// Regression: a body that reads its carried block (acc = acc + x) once
// corrupted the heap, and yields were copied back one at a time.

// CHECK-LABEL: func.func @accumulate
// CHECK-SAME:    (%[[IN:[^:]*]]: !blk.ptr<f32>, %[[OUT:[^:]*]]: !blk.ptr<f32>, %[[N:[^:]*]]: i32)
//                init: zeros -> snapshot -> carry buffer
// CHECK:         memref.store %{{.*}}, %[[ISNAP:alloca[_0-9]*]][%{{.*}}] : memref<8xf32>
// CHECK:         %[[IV:.*]] = memref.load %[[ISNAP]][%{{.*}}] : memref<8xf32>
// CHECK-NEXT:    memref.store %[[IV]], %[[CARRY:alloca[_0-9]*]][%{{.*}}] : memref<8xf32>
// CHECK:         scf.for %{{[^ ]*}} = %{{.*}} to %[[N]] step %{{[^ ]*}} : i32 {
//                  acc + x reads the carry buffer, then goes to a snapshot ...
// CHECK:             %[[A:.*]] = memref.load %[[CARRY]][%[[I:arg[0-9]+]]] : memref<8xf32>
// CHECK:             %[[S:.*]] = arith.addf %[[A]], %{{.*}} : f32
// CHECK-NEXT:        memref.store %[[S]], %[[SNAP:alloca[_0-9]*]][%[[I]]] : memref<8xf32>
//                  ... and from there into the carry buffer
// CHECK:             %[[V:.*]] = memref.load %[[SNAP]][%[[J:arg[0-9]+]]] : memref<8xf32>
// CHECK-NEXT:        memref.store %[[V]], %[[CARRY]][%[[J]]] : memref<8xf32>
// CHECK:         scf.for
// CHECK:           memref.load %[[CARRY]]
// CHECK:           blk.store
// CHECK-NOT:     tensor<
func.func @accumulate(%in: !blk.ptr<f32>, %out: !blk.ptr<f32>, %n: i32) {
  %r = blk.make_range 0 to 8 : tensor<8xi32>
  %zero = arith.constant dense<0.0> : tensor<8xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %acc = scf.for %k = %c0 to %n step %c1 iter_args(%a = %zero) -> (tensor<8xf32>) : i32 {
    %kp = blk.addptr %in, %k : !blk.ptr<f32>, i32
    %base = blk.splat %kp : !blk.ptr<f32> -> tensor<8x!blk.ptr<f32>>
    %p = blk.addptr %base, %r : tensor<8x!blk.ptr<f32>>, tensor<8xi32>
    %x = blk.load %p : tensor<8x!blk.ptr<f32>>
    %a2 = arith.addf %a, %x : tensor<8xf32>
    scf.yield %a2 : tensor<8xf32>
  }
  %ob = blk.splat %out : !blk.ptr<f32> -> tensor<8x!blk.ptr<f32>>
  %op = blk.addptr %ob, %r : tensor<8x!blk.ptr<f32>>, tensor<8xi32>
  blk.store %op, %acc : tensor<8x!blk.ptr<f32>>
  return
}
