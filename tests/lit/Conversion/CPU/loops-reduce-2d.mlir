// RUN: blockjit-opt %s --convert-blk-to-loops | FileCheck %s

// Reducing a 2-D block gives a 1-D block, which lives in a buffer. Along
// axis 1 (a row) a loop over the kept dimension stores, for each index, the
// result of an inner scf.for over the row (x[i][k]); the identity is
// re-created for every output element. Along axis 0 (a column) the block is
// read row by row instead, the inner loop along the contiguous dimension
// (it vectorizes): row k is combined into partial row k mod P of a [P, 8]
// buffer of accumulators (P = min(8, 4 rows) = 4, so that each partial
// sums a quarter of the rows), and the partials are combined pairwise per
// column.

// CHECK-LABEL: func.func @reduce_2d
// CHECK-DAG:     %[[ROWSUM:.*]] = memref.alloca() {alignment = 64 : i64} : memref<4xf32>
// CHECK-DAG:     %[[COLMAX:.*]] = memref.alloca() {alignment = 64 : i64} : memref<8xf32>
// CHECK-DAG:     %[[PART:.*]] = memref.alloca() {alignment = 64 : i64} : memref<4x8xf32>
// CHECK-DAG:     %[[X:.*]] = memref.alloca() {alignment = 64 : i64} : memref<4x8xf32>
// CHECK-NOT:     memref.alloca
//
//                the load of x
// CHECK:         memref.store %{{.*}}, %[[X]][%{{.*}}, %{{.*}}] : memref<4x8xf32>
//
//                axis 0: the partials start at -inf, ...
// CHECK:         %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK:         memref.store %[[NINF]], %[[PART]][%{{.*}}, %{{.*}}] : memref<4x8xf32>
//                ... take row k in order (k outer, j inner, contiguous) ...
// CHECK:         %[[MASK:.*]] = arith.constant 3 : index
// CHECK:         scf.for %[[K:[^ ]*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:           scf.for %[[J:[^ ]*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:        %[[P:.*]] = arith.andi %[[K]], %[[MASK]] : index
// CHECK-NEXT:        %[[ACC:.*]] = memref.load %[[PART]][%[[P]], %[[J]]] : memref<4x8xf32>
// CHECK-NEXT:        %[[E:.*]] = memref.load %[[X]][%[[K]], %[[J]]] : memref<4x8xf32>
// CHECK-NEXT:        %[[R:.*]] = arith.maximumf %[[ACC]], %[[E]] fastmath<nsz> : f32
// CHECK-NEXT:        memref.store %[[R]], %[[PART]][%[[P]], %[[J]]] : memref<4x8xf32>
//                ... and combine pairwise per column: (p0, p1), (p2, p3), then
//                the two; a zero maximum is recomputed with signed zeros.
// CHECK:         scf.for %[[C:[^ ]*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-COUNT-4:   memref.load %[[PART]][%{{.*}}, %[[C]]] : memref<4x8xf32>
// CHECK-NEXT:      %[[M01:.*]] = arith.maximumf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:      %[[M23:.*]] = arith.maximumf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:      %[[M:.*]] = arith.maximumf %[[M01]], %[[M23]] : f32
// CHECK:           %[[Z:.*]] = arith.cmpf oeq, %[[M]], %{{.*}} : f32
// CHECK-NEXT:      %[[MZ:.*]] = scf.if %[[Z]] -> (f32) {
// CHECK:             memref.load %[[X]][%{{.*}}, %[[C]]] : memref<4x8xf32>
// CHECK-NEXT:        arith.maximumf %{{[^ ]*}}, %{{[^ ]*}} : f32
// CHECK:           } else {
// CHECK-NEXT:        scf.yield %[[M]] : f32
// CHECK-NEXT:      }
// CHECK-NEXT:      memref.store %[[MZ]], %[[COLMAX]][%[[C]]] : memref<8xf32>
// CHECK-NEXT:    }
//
//                axis 1: rowsum[i] = sum_k x[i][k]
// CHECK:         %[[C4:.*]] = arith.constant 4 : index
// CHECK-NEXT:    scf.for %[[I:[^ ]*]] = %{{.*}} to %[[C4]] step %{{.*}} {
// CHECK-NEXT:      %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:           %[[C8:.*]] = arith.constant 8 : index
// CHECK-NEXT:      %[[S:.*]] = scf.for %[[K:[^ ]*]] = %{{.*}} to %[[C8]] step %{{.*}} iter_args(%[[ACC:[^ ]*]] = %[[ZERO]]) -> (f32) {
// CHECK-NEXT:        %[[E:.*]] = memref.load %[[X]][%[[I]], %[[K]]] : memref<4x8xf32>
// CHECK-NEXT:        %[[R:.*]] = arith.addf %[[ACC]], %[[E]] fastmath<reassoc> : f32
// CHECK-NEXT:        scf.yield %[[R]] : f32
// CHECK-NEXT:      }
// CHECK-NEXT:      memref.store %[[S]], %[[ROWSUM]][%[[I]]] : memref<4xf32>
// CHECK-NEXT:    }
//
//                the stores read the result buffers
// CHECK:         memref.load %[[COLMAX]]
// CHECK:         memref.load %[[ROWSUM]]
func.func @reduce_2d(%in: !blk.ptr<f32>, %out: !blk.ptr<f32>) {
  %rows = blk.make_range 0 to 4 : tensor<4xi32>
  %cols = blk.make_range 0 to 8 : tensor<8xi32>
  %c8 = arith.constant 8 : i32
  %s = blk.splat %c8 : i32 -> tensor<4x1xi32>
  %r2 = blk.expand_dims %rows axis = 1 : tensor<4xi32> -> tensor<4x1xi32>
  %roff = arith.muli %r2, %s : tensor<4x1xi32>
  %c2 = blk.expand_dims %cols axis = 0 : tensor<8xi32> -> tensor<1x8xi32>
  %rb = blk.broadcast %roff : tensor<4x1xi32> -> tensor<4x8xi32>
  %cb = blk.broadcast %c2 : tensor<1x8xi32> -> tensor<4x8xi32>
  %off = arith.addi %rb, %cb : tensor<4x8xi32>
  %base = blk.splat %in : !blk.ptr<f32> -> tensor<4x8x!blk.ptr<f32>>
  %p = blk.addptr %base, %off : tensor<4x8x!blk.ptr<f32>>, tensor<4x8xi32>
  %x = blk.load %p : tensor<4x8x!blk.ptr<f32>>
  %colmax = blk.reduce max %x axis = 0 : tensor<4x8xf32> -> tensor<8xf32>
  %rowsum = blk.reduce sum %x axis = 1 : tensor<4x8xf32> -> tensor<4xf32>
  %ob = blk.splat %out : !blk.ptr<f32> -> tensor<8x!blk.ptr<f32>>
  %op = blk.addptr %ob, %cols : tensor<8x!blk.ptr<f32>>, tensor<8xi32>
  blk.store %op, %colmax : tensor<8x!blk.ptr<f32>>
  %ob2 = blk.splat %out : !blk.ptr<f32> -> tensor<4x!blk.ptr<f32>>
  %op2 = blk.addptr %ob2, %rows : tensor<4x!blk.ptr<f32>>, tensor<4xi32>
  blk.store %op2, %rowsum : tensor<4x!blk.ptr<f32>>
  return
}

// A block of 3 rows (dimensions need not be powers of two): 2 partial rows,
// row k into partial k & 1, combined once. (8 partials of 3 rows would leave
// one unpaired and read past the partials; it crashed.)
// CHECK-LABEL: func.func @reduce_3_rows
// CHECK:         %[[PART:.*]] = memref.alloca() {alignment = 64 : i64} : memref<2x8xf32>
// CHECK:             %[[P:.*]] = arith.andi %{{.*}}, %{{.*}} : index
// CHECK-NEXT:        memref.load %[[PART]][%[[P]], %{{.*}}] : memref<2x8xf32>
// CHECK-NEXT:        memref.load %{{.*}} : memref<3x8xf32>
// CHECK:         scf.for %[[C:[^ ]*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-COUNT-2:   memref.load %[[PART]][%{{.*}}, %[[C]]] : memref<2x8xf32>
// CHECK-NOT:       memref.load %[[PART]][
// CHECK:           arith.addf %{{.*}}, %{{.*}} fastmath<reassoc> : f32
// CHECK-NOT:       memref.load %[[PART]][
func.func @reduce_3_rows(%in: !blk.ptr<f32>, %out: !blk.ptr<f32>) {
  %p = blk.splat %in : !blk.ptr<f32> -> tensor<3x8x!blk.ptr<f32>>
  %x = blk.load %p : tensor<3x8x!blk.ptr<f32>>
  %s = blk.reduce sum %x axis = 0 : tensor<3x8xf32> -> tensor<8xf32>
  %t = blk.reduce sum %s axis = 0 : tensor<8xf32> -> f32
  blk.store %out, %t : !blk.ptr<f32>
  return
}
