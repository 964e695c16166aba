// RUN: blockjit-opt %s --convert-blk-to-loops | FileCheck %s

// An unmasked block load is a plain loop of scalar loads into a stack buffer:
// no scf.if, no select. A 2-D load gets a 2-deep loop nest, innermost over
// the last dimension, and a 2-D buffer.

// CHECK-LABEL: func.func @unmasked_load_1d
// CHECK-SAME:    (%[[IN:[^:]*]]: !blk.ptr<f32>, %[[OUT:[^:]*]]: !blk.ptr<f32>)
// CHECK-NEXT:    %[[BUF:.*]] = memref.alloca() {alignment = 64 : i64} : memref<32xf32>
// CHECK:         %[[C32:.*]] = arith.constant 32 : index
// CHECK:         %[[SUM:.*]] = scf.for %[[I:.*]] = %{{.*}} to %[[C32]] step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (f32) {
// CHECK-NEXT:      %[[OFF:.*]] = arith.index_cast %[[I]] : index to i32
// CHECK-NEXT:      %[[PTR:.*]] = blk.addptr %[[IN]], %[[OFF]] : !blk.ptr<f32>, i32
// CHECK-NEXT:      %[[X:.*]] = blk.load %[[PTR]] : !blk.ptr<f32>
// CHECK-NEXT:      memref.store %[[X]], %[[BUF]][%[[I]]] : memref<32xf32>
//                  (the sum of the block, fused into the loop that loads it)
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[ACC]], %[[X]] fastmath<reassoc> : f32
// CHECK-NEXT:      scf.yield %[[S]] : f32
// CHECK-NEXT:    }
// CHECK-NOT:     scf.if
// CHECK:         blk.store %[[OUT]], %[[SUM]]
// CHECK:         return
func.func @unmasked_load_1d(%in: !blk.ptr<f32>, %out: !blk.ptr<f32>) {
  %r = blk.make_range 0 to 32 : tensor<32xi32>
  %base = blk.splat %in : !blk.ptr<f32> -> tensor<32x!blk.ptr<f32>>
  %p = blk.addptr %base, %r : tensor<32x!blk.ptr<f32>>, tensor<32xi32>
  %x = blk.load %p : tensor<32x!blk.ptr<f32>>
  %s = blk.reduce sum %x axis = 0 : tensor<32xf32> -> f32
  blk.store %out, %s : !blk.ptr<f32>
  return
}

// ptrs[i][j] = in + i * 8 + j.
// CHECK-LABEL: func.func @unmasked_load_2d
// CHECK-SAME:    (%[[IN:[^:]*]]: !blk.ptr<i32>, %[[OUT:[^:]*]]: !blk.ptr<i32>)
// CHECK:         %[[BUF:.*]] = memref.alloca() {alignment = 64 : i64} : memref<4x8xi32>
// CHECK:         %[[C4:.*]] = arith.constant 4 : index
// CHECK-NEXT:    scf.for %[[I:.*]] = %{{.*}} to %[[C4]] step %{{.*}} {
// CHECK:           %[[C8:.*]] = arith.constant 8 : index
// CHECK:           scf.for %[[J:.*]] = %{{.*}} to %[[C8]] step %{{.*}} {
// CHECK-NOT:         scf.if
// CHECK-DAG:         arith.index_cast %[[I]] : index to i32
// CHECK-DAG:         arith.index_cast %[[J]] : index to i32
// CHECK:             %[[PTR:.*]] = blk.addptr %[[IN]], %{{.*}} : !blk.ptr<i32>, i32
// CHECK-NEXT:        %[[X:.*]] = blk.load %[[PTR]] : !blk.ptr<i32>
// CHECK-NEXT:        memref.store %[[X]], %[[BUF]][%[[I]], %[[J]]] : memref<4x8xi32>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
func.func @unmasked_load_2d(%in: !blk.ptr<i32>, %out: !blk.ptr<i32>) {
  %rows = blk.make_range 0 to 4 : tensor<4xi32>
  %cols = blk.make_range 0 to 8 : tensor<8xi32>
  %c8 = arith.constant 8 : i32
  %stride = blk.splat %c8 : i32 -> tensor<4x1xi32>
  %r2 = blk.expand_dims %rows axis = 1 : tensor<4xi32> -> tensor<4x1xi32>
  %roff = arith.muli %r2, %stride : tensor<4x1xi32>
  %c2 = blk.expand_dims %cols axis = 0 : tensor<8xi32> -> tensor<1x8xi32>
  %rb = blk.broadcast %roff : tensor<4x1xi32> -> tensor<4x8xi32>
  %cb = blk.broadcast %c2 : tensor<1x8xi32> -> tensor<4x8xi32>
  %off = arith.addi %rb, %cb : tensor<4x8xi32>
  %base = blk.splat %in : !blk.ptr<i32> -> tensor<4x8x!blk.ptr<i32>>
  %p = blk.addptr %base, %off : tensor<4x8x!blk.ptr<i32>>, tensor<4x8xi32>
  %x = blk.load %p : tensor<4x8x!blk.ptr<i32>>
  %s = blk.reduce sum %x axis = 0 : tensor<4x8xi32> -> tensor<8xi32>
  %t = blk.reduce sum %s axis = 0 : tensor<8xi32> -> i32
  blk.store %out, %t : !blk.ptr<i32>
  return
}
