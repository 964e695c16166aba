// RUN: blockjit-opt %s --convert-blk-to-loops | FileCheck %s

// An scf.for that carries a block: the block lives in a carry buffer (at
// function entry), the init value is copied into it before the loop, the
// new scf.for has no tensor iter_args, and the end of every iteration copies
// the yielded block into the carry buffer (through a snapshot buffer, in
// case the yielded value reads the carry buffer itself). Users after the loop
// read the carry buffer. Scalar iter_args are kept as they are.
//
// (The body here does not read the carried block: see
// loops-for-carry-accumulate.mlir for the accumulator case.) The body's load
// x is read only before any store, so it gets no buffer of its own: the sum
// (the load's loop, left for that fused reduction) and y = x * x read it from
// memory, and the next iteration's x is prefetched in between.

// CHECK-LABEL: func.func @carry_last
// CHECK-SAME:    (%[[IN:[^:]*]]: !blk.ptr<f32>, %[[OUT:[^:]*]]: !blk.ptr<f32>, %[[N:[^:]*]]: i32)
//                carry buffer and two snapshots, no load buffer
// CHECK-COUNT-3: memref.alloca() {alignment = 64 : i64} : memref<8xf32>
// CHECK-NOT:     memref.alloca
// CHECK:         %[[C1:.*]] = arith.constant 1 : i32
// CHECK-NEXT:    %[[FZ:.*]] = arith.constant 0.000000e+00 : f32
//
//                init: zeros -> snapshot -> carry buffer
// CHECK:         scf.for %[[I:[^ ]*]] =
// CHECK-NEXT:      %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      memref.store %[[Z]], %[[INITSNAP:alloca[_0-9]*]][%[[I]]] : memref<8xf32>
// CHECK:         scf.for %[[I:[^ ]*]] =
// CHECK-NEXT:      %[[V:.*]] = memref.load %[[INITSNAP]][%[[I]]] : memref<8xf32>
// CHECK-NEXT:      memref.store %[[V]], %[[CARRY:alloca[_0-9]*]][%[[I]]] : memref<8xf32>
//
//                only the scalar iter_arg is left
// CHECK:         %[[TOT:.*]] = scf.for %[[K:[^ ]*]] = %{{.*}} to %[[N]] step %{{.*}} iter_args(%[[T:[^ ]*]] = %[[FZ]]) -> (f32)  : i32 {
// CHECK-NEXT:      %[[ROWPTR:.*]] = blk.addptr %[[IN]], %[[K]] : !blk.ptr<f32>, i32
// CHECK-NOT:       tensor<
//                  the sum, reading x from memory
// CHECK:           %[[S:.*]] = scf.for %[[I:[^ ]*]] = {{.*}} -> (f32) {
// CHECK-NEXT:        %[[COL:.*]] = arith.index_cast %[[I]] : index to i32
// CHECK-NEXT:        %[[P:.*]] = blk.addptr %[[ROWPTR]], %[[COL]] : !blk.ptr<f32>, i32
// CHECK-NEXT:        %[[X:.*]] = blk.load %[[P]] : !blk.ptr<f32>
// CHECK-NEXT:        arith.addf %{{.*}}, %[[X]] fastmath<reassoc> : f32
//                  the next iteration's x, prefetched
// CHECK:           %[[K1:.*]] = arith.addi %[[K]], %[[C1]] : i32
// CHECK:           %[[C16:.*]] = arith.constant 16 : index
// CHECK:           scf.for %[[I:[^ ]*]] = %{{.*}} to %{{.*}} step %[[C16]] {
// CHECK-NEXT:        %[[COL:.*]] = arith.index_cast %[[I]] : index to i32
// CHECK-NEXT:        %[[NROWPTR:.*]] = blk.addptr %[[IN]], %[[K1]] : !blk.ptr<f32>, i32
// CHECK-NEXT:        %[[NP:.*]] = blk.addptr %[[NROWPTR]], %[[COL]] : !blk.ptr<f32>, i32
// CHECK-NEXT:        blk.prefetch %[[NP]] : !blk.ptr<f32>
// CHECK-NEXT:      }
// CHECK-NEXT:      %[[T2:.*]] = arith.addf %[[T]], %[[S]] : f32
//                  y = x * x (x read from memory) into the snapshot, then
//                  into the carry buffer
// CHECK:           scf.for %[[I:[^ ]*]] =
// CHECK-NEXT:        %[[COL:.*]] = arith.index_cast %[[I]] : index to i32
// CHECK-NEXT:        %[[P:.*]] = blk.addptr %[[ROWPTR]], %[[COL]] : !blk.ptr<f32>, i32
// CHECK-NEXT:        %[[X1:.*]] = blk.load %[[P]] : !blk.ptr<f32>
// CHECK-NEXT:        %[[COL:.*]] = arith.index_cast %[[I]] : index to i32
// CHECK-NEXT:        %[[P:.*]] = blk.addptr %[[ROWPTR]], %[[COL]] : !blk.ptr<f32>, i32
// CHECK-NEXT:        %[[X2:.*]] = blk.load %[[P]] : !blk.ptr<f32>
// CHECK-NEXT:        %[[Y:.*]] = arith.mulf %[[X1]], %[[X2]] : f32
// CHECK-NEXT:        memref.store %[[Y]], %[[YSNAP:alloca[_0-9]*]][%[[I]]] : memref<8xf32>
// CHECK:           scf.for %[[I:[^ ]*]] =
// CHECK-NEXT:        %[[V:.*]] = memref.load %[[YSNAP]][%[[I]]] : memref<8xf32>
// CHECK-NEXT:        memref.store %[[V]], %[[CARRY]][%[[I]]] : memref<8xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:      scf.yield %[[T2]] : f32
// CHECK-NEXT:    }
//
//                after the loop: the block result is the carry buffer
// CHECK:         scf.for %[[I:[^ ]*]] =
// CHECK:           %[[R:.*]] = memref.load %[[CARRY]][%[[I]]] : memref<8xf32>
// CHECK-NEXT:      blk.store %{{.*}}, %[[R]] : !blk.ptr<f32>
// CHECK:         blk.store %{{.*}}, %[[TOT]] : !blk.ptr<f32>
// CHECK-NOT:     tensor<
func.func @carry_last(%in: !blk.ptr<f32>, %out: !blk.ptr<f32>, %n: i32) {
  %r = blk.make_range 0 to 8 : tensor<8xi32>
  %zero = arith.constant dense<0.0> : tensor<8xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %fz = arith.constant 0.0 : f32
  %last, %tot = scf.for %k = %c0 to %n step %c1 iter_args(%a = %zero, %t = %fz) -> (tensor<8xf32>, f32) : i32 {
    %kp = blk.addptr %in, %k : !blk.ptr<f32>, i32
    %base = blk.splat %kp : !blk.ptr<f32> -> tensor<8x!blk.ptr<f32>>
    %p = blk.addptr %base, %r : tensor<8x!blk.ptr<f32>>, tensor<8xi32>
    %x = blk.load %p : tensor<8x!blk.ptr<f32>>
    %s = blk.reduce sum %x axis = 0 : tensor<8xf32> -> f32
    %t2 = arith.addf %t, %s : f32
    %y = arith.mulf %x, %x : tensor<8xf32>
    scf.yield %y, %t2 : tensor<8xf32>, f32
  }
  %ob = blk.splat %out : !blk.ptr<f32> -> tensor<8x!blk.ptr<f32>>
  %op = blk.addptr %ob, %r : tensor<8x!blk.ptr<f32>>, tensor<8xi32>
  blk.store %op, %last : tensor<8x!blk.ptr<f32>>
  %c8 = arith.constant 8 : i32
  %o2 = blk.addptr %out, %c8 : !blk.ptr<f32>, i32
  blk.store %o2, %tot : !blk.ptr<f32>
  return
}
