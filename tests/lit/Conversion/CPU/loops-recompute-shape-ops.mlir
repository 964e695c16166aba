// RUN: blockjit-opt %s --convert-blk-to-loops | FileCheck %s

// splat, make_range, expand_dims, broadcast, addptr (and cheap elementwise
// ops such as muli/addi) get no stack buffer: the store's loop nest recomputes
// every element from the induction variables.
//   make_range s to e    -> index_cast(iv) (+ s when s != 0)
//   splat x              -> x
//   expand_dims axis = k -> the source at the indices without index k
//   broadcast            -> the source at index 0 along stretched dims
//   addptr               -> scalar blk.addptr of the recomputed operands
// This holds for the pointers of loads too, whether the load is reloaded
// (read from memory again at each use) or copied into a buffer.

// CHECK-LABEL: func.func @tile_store
// CHECK-SAME:    (%[[OUT:[^:]*]]: !blk.ptr<i32>, %[[STRIDE:[^:]*]]: i32)
// CHECK-NOT:     memref.alloca
// CHECK-NOT:     memref.store
// CHECK:         %[[C4:.*]] = arith.constant 4 : index
// CHECK-NEXT:    scf.for %[[I:.*]] = %{{.*}} to %[[C4]] step %{{.*}} {
// CHECK:           %[[C8:.*]] = arith.constant 8 : index
// CHECK:           scf.for %[[J:.*]] = %{{.*}} to %[[C8]] step %{{.*}} {
//                    pointer: out + (i * stride + (j + 8))
// CHECK:             %[[ROW:.*]] = arith.index_cast %[[I]] : index to i32
// CHECK-NEXT:        %[[ROFF:.*]] = arith.muli %[[ROW]], %[[STRIDE]] : i32
// CHECK:             %[[J32:.*]] = arith.index_cast %[[J]] : index to i32
// CHECK-NEXT:        %[[START:.*]] = arith.constant 8 : i32
// CHECK-NEXT:        %[[COL:.*]] = arith.addi %[[J32]], %[[START]] : i32
// CHECK-NEXT:        %[[OFF:.*]] = arith.addi %[[ROFF]], %[[COL]] : i32
// CHECK-NEXT:        %[[PTR:.*]] = blk.addptr %[[OUT]], %[[OFF]] : !blk.ptr<i32>, i32
//                    value: the same offsets, recomputed once more
// CHECK:             arith.index_cast %[[I]] : index to i32
// CHECK:             arith.index_cast %[[J]] : index to i32
// CHECK-NEXT:        %[[C8B:.*]] = arith.constant 8 : i32
// CHECK-NEXT:        %[[COLB:.*]] = arith.addi %{{.*}}, %[[C8B]] : i32
// CHECK-NEXT:        %[[VAL:.*]] = arith.addi %{{.*}}, %[[COLB]] : i32
// CHECK-NEXT:        blk.store %[[PTR]], %[[VAL]] : !blk.ptr<i32>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    return
// CHECK-NOT:     blk.splat
// CHECK-NOT:     blk.make_range
// CHECK-NOT:     blk.broadcast
// CHECK-NOT:     blk.expand_dims
func.func @tile_store(%out: !blk.ptr<i32>, %stride: i32) {
  %rows = blk.make_range 0 to 4 : tensor<4xi32>
  %cols = blk.make_range 8 to 16 : tensor<8xi32>
  %r2 = blk.expand_dims %rows axis = 1 : tensor<4xi32> -> tensor<4x1xi32>
  %c2 = blk.expand_dims %cols axis = 0 : tensor<8xi32> -> tensor<1x8xi32>
  %s = blk.splat %stride : i32 -> tensor<4x1xi32>
  %roff = arith.muli %r2, %s : tensor<4x1xi32>
  %rb = blk.broadcast %roff : tensor<4x1xi32> -> tensor<4x8xi32>
  %cb = blk.broadcast %c2 : tensor<1x8xi32> -> tensor<4x8xi32>
  %off = arith.addi %rb, %cb : tensor<4x8xi32>
  %base = blk.splat %out : !blk.ptr<i32> -> tensor<4x8x!blk.ptr<i32>>
  %p = blk.addptr %base, %off : tensor<4x8x!blk.ptr<i32>>, tensor<4x8xi32>
  blk.store %p, %off : tensor<4x8x!blk.ptr<i32>>
  return
}

// A pointer block built outside a row loop and used inside it is recomputed
// inside the consumer's loop, after the row's scalar pointer arithmetic; no
// buffer holds pointers or offsets. x is read only before any store, so it
// is reloaded and nothing is buffered at all: the reduction's loop (all that
// is left of the load's) recomputes each pointer and loads through it, and
// the prefetch of the next row's elements recomputes them from row + 1.
// CHECK-LABEL: func.func @ptrs_across_loop
// CHECK-SAME:    (%[[IN:[^:]*]]: !blk.ptr<f32>, %[[OUT:[^:]*]]: !blk.ptr<f32>, %[[N:[^:]*]]: i32)
// CHECK-NOT:     memref.
// CHECK:         %[[C1:.*]] = arith.constant 1 : i32
// CHECK-NEXT:    scf.for %[[ROW:.*]] = %{{.*}} to %[[N]] step %[[C1]] : i32 {
// CHECK-NEXT:      %[[ROWPTR:.*]] = blk.addptr %[[IN]], %[[ROW]] : !blk.ptr<f32>, i32
// CHECK:           %[[SUM:.*]] = scf.for %[[I:[^ ]*]] = {{.*}} -> (f32) {
// CHECK-NEXT:        %[[COL:.*]] = arith.index_cast %[[I]] : index to i32
// CHECK-NEXT:        %[[PTR:.*]] = blk.addptr %[[ROWPTR]], %[[COL]] : !blk.ptr<f32>, i32
// CHECK-NEXT:        %[[X:.*]] = blk.load %[[PTR]] : !blk.ptr<f32>
// CHECK-NEXT:        %[[ACC:.*]] = arith.addf %{{.*}}, %[[X]] fastmath<reassoc> : f32
// CHECK-NEXT:        scf.yield %[[ACC]] : f32
// CHECK-NEXT:      }
// CHECK-NEXT:      %[[NEXT:.*]] = arith.addi %[[ROW]], %[[C1]] : i32
// CHECK:           %[[C16:.*]] = arith.constant 16 : index
// CHECK:           scf.for %[[J:[^ ]*]] = %{{.*}} to %{{.*}} step %[[C16]] {
// CHECK-NEXT:        %[[COL2:.*]] = arith.index_cast %[[J]] : index to i32
// CHECK-NEXT:        %[[NROWPTR:.*]] = blk.addptr %[[IN]], %[[NEXT]] : !blk.ptr<f32>, i32
// CHECK-NEXT:        %[[NPTR:.*]] = blk.addptr %[[NROWPTR]], %[[COL2]] : !blk.ptr<f32>, i32
// CHECK-NEXT:        blk.prefetch %[[NPTR]] : !blk.ptr<f32>
// CHECK-NEXT:      }
// CHECK-NEXT:      %[[O:.*]] = blk.addptr %[[OUT]], %[[ROW]] : !blk.ptr<f32>, i32
// CHECK-NEXT:      blk.store %[[O]], %[[SUM]] : !blk.ptr<f32>
// CHECK-NEXT:    }
// CHECK-NOT:     memref.
func.func @ptrs_across_loop(%in: !blk.ptr<f32>, %out: !blk.ptr<f32>, %n: i32) {
  %r = blk.make_range 0 to 128 : tensor<128xi32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %row = %c0 to %n step %c1 : i32 {
    %rp = blk.addptr %in, %row : !blk.ptr<f32>, i32
    %base = blk.splat %rp : !blk.ptr<f32> -> tensor<128x!blk.ptr<f32>>
    %p = blk.addptr %base, %r : tensor<128x!blk.ptr<f32>>, tensor<128xi32>
    %x = blk.load %p : tensor<128x!blk.ptr<f32>>
    %s = blk.reduce sum %x axis = 0 : tensor<128xf32> -> f32
    %o = blk.addptr %out, %row : !blk.ptr<f32>, i32
    blk.store %o, %s : !blk.ptr<f32>
  }
  return
}

// The same, with x read again after a store (to out, which may alias in):
// x is copied into a buffer, and that is the only buffer. The copy loop
// recomputes each input pointer from the row's pointer, and the store of x
// recomputes its output pointers from the row's output pointer.
// CHECK-LABEL: func.func @ptrs_across_loop_buffered
// CHECK-SAME:    (%[[IN:[^:]*]]: !blk.ptr<f32>, %[[OUT:[^:]*]]: !blk.ptr<f32>, %[[N:[^:]*]]: i32)
// CHECK-NEXT:    %[[BUF:.*]] = memref.alloca() {alignment = 64 : i64} : memref<128xf32>
// CHECK-NOT:     memref.alloca
// CHECK:         scf.for %[[ROW:.*]] = %{{.*}} to %[[N]] step %{{.*}} : i32 {
// CHECK:           %[[ROWPTR:.*]] = blk.addptr %[[IN]], %[[ROW]] : !blk.ptr<f32>, i32
// CHECK:           scf.for %[[I:[^ ]*]] =
// CHECK-NEXT:        %[[COL:.*]] = arith.index_cast %[[I]] : index to i32
// CHECK-NEXT:        %[[PTR:.*]] = blk.addptr %[[ROWPTR]], %[[COL]] : !blk.ptr<f32>, i32
// CHECK-NEXT:        %[[X:.*]] = blk.load %[[PTR]] : !blk.ptr<f32>
// CHECK-NEXT:        memref.store %[[X]], %[[BUF]][%[[I]]] : memref<128xf32>
// CHECK:           %[[O:.*]] = blk.addptr %[[OUT]], %[[ROW]] : !blk.ptr<f32>, i32
// CHECK-NEXT:      blk.store %[[O]], %{{.*}} : !blk.ptr<f32>
// CHECK:           scf.for %[[J:[^ ]*]] =
// CHECK-NEXT:        %[[COL2:.*]] = arith.index_cast %[[J]] : index to i32
// CHECK-NEXT:        %[[OPTR:.*]] = blk.addptr %[[O]], %[[COL2]] : !blk.ptr<f32>, i32
// CHECK-NEXT:        %[[V:.*]] = memref.load %[[BUF]][%[[J]]] : memref<128xf32>
// CHECK-NEXT:        blk.store %[[OPTR]], %[[V]] : !blk.ptr<f32>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NOT:     memref.alloca
func.func @ptrs_across_loop_buffered(%in: !blk.ptr<f32>, %out: !blk.ptr<f32>, %n: i32) {
  %r = blk.make_range 0 to 128 : tensor<128xi32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %row = %c0 to %n step %c1 : i32 {
    %rp = blk.addptr %in, %row : !blk.ptr<f32>, i32
    %base = blk.splat %rp : !blk.ptr<f32> -> tensor<128x!blk.ptr<f32>>
    %p = blk.addptr %base, %r : tensor<128x!blk.ptr<f32>>, tensor<128xi32>
    %x = blk.load %p : tensor<128x!blk.ptr<f32>>
    %s = blk.reduce sum %x axis = 0 : tensor<128xf32> -> f32
    %o = blk.addptr %out, %row : !blk.ptr<f32>, i32
    blk.store %o, %s : !blk.ptr<f32>
    %ob = blk.splat %o : !blk.ptr<f32> -> tensor<128x!blk.ptr<f32>>
    %op = blk.addptr %ob, %r : tensor<128x!blk.ptr<f32>>, tensor<128xi32>
    blk.store %op, %x : tensor<128x!blk.ptr<f32>>
  }
  return
}
