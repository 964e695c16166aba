// RUN: blockjit-opt %s --convert-blk-to-loops | FileCheck %s

// An unmasked block load that is copied (a 1-D block read again after a
// store, which may have changed memory; any 2-D block) is a plain loop of
// scalar loads into a stack buffer: no scf.if, no select. A 2-D load gets a
// 2-deep loop nest, innermost over the last dimension, and a 2-D buffer.
// A 1-D block whose every read comes before the next store is not copied:
// its loop only computes the reductions fused into it, and every other loop
// that reads it loads it from memory again.

// x is read by the store of x - sum, the first store after the load: the
// block is copied, and the store's loop reads the copy.
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
// CHECK:         scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:      %[[OOFF:.*]] = arith.index_cast %[[J]] : index to i32
// CHECK-NEXT:      %[[OPTR:.*]] = blk.addptr %[[OUT]], %[[OOFF]] : !blk.ptr<f32>, i32
// CHECK-NEXT:      %[[XJ:.*]] = memref.load %[[BUF]][%[[J]]] : memref<32xf32>
// CHECK-NEXT:      %[[D:.*]] = arith.subf %[[XJ]], %[[SUM]] : f32
// CHECK-NEXT:      blk.store %[[OPTR]], %[[D]] : !blk.ptr<f32>
// CHECK-NEXT:    }
// CHECK-NEXT:    return
func.func @unmasked_load_1d(%in: !blk.ptr<f32>, %out: !blk.ptr<f32>) {
  %r = blk.make_range 0 to 32 : tensor<32xi32>
  %base = blk.splat %in : !blk.ptr<f32> -> tensor<32x!blk.ptr<f32>>
  %p = blk.addptr %base, %r : tensor<32x!blk.ptr<f32>>, tensor<32xi32>
  %x = blk.load %p : tensor<32x!blk.ptr<f32>>
  %s = blk.reduce sum %x axis = 0 : tensor<32xf32> -> f32
  %sb = blk.splat %s : f32 -> tensor<32xf32>
  %d = arith.subf %x, %sb : tensor<32xf32>
  %ob = blk.splat %out : !blk.ptr<f32> -> tensor<32x!blk.ptr<f32>>
  %op = blk.addptr %ob, %r : tensor<32x!blk.ptr<f32>>, tensor<32xi32>
  blk.store %op, %d : tensor<32x!blk.ptr<f32>>
  return
}

// Every read of x (the sum, and the sum of squares of x - sum) comes before
// the only store: no buffer. The load's loop computes the sum; the second
// loop loads x from the same pointers again (once per use of x - sum).
// CHECK-LABEL: func.func @unmasked_load_1d_reload
// CHECK-SAME:    (%[[IN:[^:]*]]: !blk.ptr<f32>, %[[OUT:[^:]*]]: !blk.ptr<f32>)
// CHECK-NOT:     memref
// CHECK:         %[[C32:.*]] = arith.constant 32 : index
// CHECK:         %[[SUM:.*]] = scf.for %[[I:.*]] = %{{.*}} to %[[C32]] step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (f32) {
// CHECK-NEXT:      %[[OFF:.*]] = arith.index_cast %[[I]] : index to i32
// CHECK-NEXT:      %[[PTR:.*]] = blk.addptr %[[IN]], %[[OFF]] : !blk.ptr<f32>, i32
// CHECK-NEXT:      %[[X:.*]] = blk.load %[[PTR]] : !blk.ptr<f32>
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[ACC]], %[[X]] fastmath<reassoc> : f32
// CHECK-NEXT:      scf.yield %[[S]] : f32
// CHECK-NEXT:    }
// CHECK-NOT:     memref
// CHECK:         %[[VAR:.*]] = scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC2:.*]] = %{{.*}}) -> (f32) {
// CHECK-NEXT:      %[[OFF1:.*]] = arith.index_cast %[[J]] : index to i32
// CHECK-NEXT:      %[[PTR1:.*]] = blk.addptr %[[IN]], %[[OFF1]] : !blk.ptr<f32>, i32
// CHECK-NEXT:      %[[X1:.*]] = blk.load %[[PTR1]] : !blk.ptr<f32>
// CHECK-NEXT:      %[[D1:.*]] = arith.subf %[[X1]], %[[SUM]] : f32
// CHECK-NEXT:      %[[OFF2:.*]] = arith.index_cast %[[J]] : index to i32
// CHECK-NEXT:      %[[PTR2:.*]] = blk.addptr %[[IN]], %[[OFF2]] : !blk.ptr<f32>, i32
// CHECK-NEXT:      %[[X2:.*]] = blk.load %[[PTR2]] : !blk.ptr<f32>
// CHECK-NEXT:      %[[D2:.*]] = arith.subf %[[X2]], %[[SUM]] : f32
// CHECK-NEXT:      %[[Q:.*]] = arith.mulf %[[D1]], %[[D2]] : f32
// CHECK-NEXT:      %[[V:.*]] = arith.addf %[[ACC2]], %[[Q]] fastmath<reassoc> : f32
// CHECK-NEXT:      scf.yield %[[V]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    blk.store %[[OUT]], %[[VAR]] : !blk.ptr<f32>
// CHECK-NEXT:    return
func.func @unmasked_load_1d_reload(%in: !blk.ptr<f32>, %out: !blk.ptr<f32>) {
  %r = blk.make_range 0 to 32 : tensor<32xi32>
  %base = blk.splat %in : !blk.ptr<f32> -> tensor<32x!blk.ptr<f32>>
  %p = blk.addptr %base, %r : tensor<32x!blk.ptr<f32>>, tensor<32xi32>
  %x = blk.load %p : tensor<32x!blk.ptr<f32>>
  %s = blk.reduce sum %x axis = 0 : tensor<32xf32> -> f32
  %sb = blk.splat %s : f32 -> tensor<32xf32>
  %d = arith.subf %x, %sb : tensor<32xf32>
  %q = arith.mulf %d, %d : tensor<32xf32>
  %v = blk.reduce sum %q axis = 0 : tensor<32xf32> -> f32
  blk.store %out, %v : !blk.ptr<f32>
  return
}

// ptrs[i][j] = in + i * 8 + j.
// CHECK-LABEL: func.func @unmasked_load_2d
// CHECK-SAME:    (%[[IN:[^:]*]]: !blk.ptr<i32>, %[[OUT:[^:]*]]: !blk.ptr<i32>)
// (Two 4x8 buffers: the block, and the partial column sums of its reduction
// along axis 0.)
// CHECK-COUNT-2: memref.alloca() {alignment = 64 : i64} : memref<4x8xi32>
// CHECK:         %[[C4:.*]] = arith.constant 4 : index
// CHECK-NEXT:    scf.for %[[I:.*]] = %{{.*}} to %[[C4]] step %{{.*}} {
// CHECK:           %[[C8:.*]] = arith.constant 8 : index
// CHECK:           scf.for %[[J:.*]] = %{{.*}} to %[[C8]] step %{{.*}} {
// CHECK-NOT:         scf.if
// CHECK-DAG:         arith.index_cast %[[I]] : index to i32
// CHECK-DAG:         arith.index_cast %[[J]] : index to i32
// CHECK:             %[[PTR:.*]] = blk.addptr %[[IN]], %{{.*}} : !blk.ptr<i32>, i32
// CHECK-NEXT:        %[[X:.*]] = blk.load %[[PTR]] : !blk.ptr<i32>
// CHECK-NEXT:        memref.store %[[X]], %{{.*}}[%[[I]], %[[J]]] : memref<4x8xi32>
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
