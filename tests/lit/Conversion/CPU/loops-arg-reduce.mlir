// RUN: blockjit-opt %s --convert-blk-to-loops | FileCheck %s

// blk.arg_reduce becomes a loop carrying the best (value, index) pair from
// the identity (-inf, INT32_MAX); f16 compares in f32. A NaN beats any
// number, a number beats the accumulator when greater, or equal with a
// smaller index (so the first index wins ties). The index is the loop's.
// A 1-D block read only by the arg_reduce is not copied into a buffer: the
// reduction loop reloads each element from memory (blk.load at the loop's
// index). A 2-D block is still copied into a buffer and read from it.

// CHECK-LABEL: func.func @argmax_f16
// CHECK-NOT:     memref.
// CHECK:         %[[IMAX:.*]] = arith.constant 2147483647 : i32
// CHECK:         %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK:         %[[R:.*]]:2 = scf.for %[[K:[^ ]*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[V:[^ ]*]] = %[[NINF]], %[[I:[^ ]*]] = %[[IMAX]]) -> (f32, i32) {
// CHECK-NEXT:      %[[KP:.*]] = arith.index_cast %[[K]] : index to i32
// CHECK-NEXT:      %[[P:.*]] = blk.addptr %{{.*}}, %[[KP]] : !blk.ptr<f16>, i32
// CHECK-NEXT:      %[[X16:.*]] = blk.load %[[P]] : !blk.ptr<f16>
// CHECK-NEXT:      %[[X:.*]] = arith.extf %[[X16]] : f16 to f32
// CHECK:           %[[K32:.*]] = arith.index_cast %[[K]] : index to i32
// CHECK:           %[[FIRST:.*]] = arith.cmpi slt, %[[K32]], %[[I]] : i32
// CHECK:           %[[XNAN:.*]] = arith.cmpf uno, %[[X]], %[[X]] : f32
// CHECK:           %[[GT:.*]] = arith.cmpf ogt, %[[X]], %[[V]] : f32
// CHECK:           %[[EQ:.*]] = arith.cmpf oeq, %[[X]], %[[V]] : f32
// CHECK-NEXT:      %[[TIE:.*]] = arith.andi %[[EQ]], %[[FIRST]] : i1
// CHECK-NEXT:      arith.ori %[[GT]], %[[TIE]] : i1
// CHECK:           %[[B:.*]] = arith.select %[[XNAN]], %{{.*}}, %{{.*}} : i1
// CHECK:           %[[NV:.*]] = arith.select %[[B]], %[[X]], %[[V]] : f32
// CHECK:           %[[NI:.*]] = arith.select %[[B]], %[[K32]], %[[I]] : i32
// CHECK:           scf.yield %[[NV]], %[[NI]] : f32, i32
// CHECK-NOT:     memref.
// CHECK:         blk.store %{{.*}}, %[[R]]#1 : !blk.ptr<i32>
func.func @argmax_f16(%in: !blk.ptr<f16>, %out: !blk.ptr<i32>) {
  %r = blk.make_range 0 to 128 : tensor<128xi32>
  %b = blk.splat %in : !blk.ptr<f16> -> tensor<128x!blk.ptr<f16>>
  %p = blk.addptr %b, %r : tensor<128x!blk.ptr<f16>>, tensor<128xi32>
  %x = blk.load %p : tensor<128x!blk.ptr<f16>>
  %i = blk.arg_reduce max %x axis = 0 : tensor<128xf16> -> i32
  blk.store %out, %i : !blk.ptr<i32>
  return
}

// A 2-D argmin along axis 0 of i8: a buffer of indices, one loop per
// column over the rows; i8 compares as i32 from INT_MAX.
// CHECK-LABEL: func.func @argmin_cols_i8
// CHECK:         %[[OUT:.*]] = memref.alloca() {alignment = 64 : i64} : memref<8xi32>
// CHECK:         %[[X:.*]] = memref.alloca() {alignment = 64 : i64} : memref<4x8xi8>
// CHECK:           blk.load
// CHECK-NEXT:      memref.store %{{.*}}, %[[X]][%{{.*}}, %{{.*}}] : memref<4x8xi8>
// CHECK:         scf.for %[[J:[^ ]*]] = %{{.*}} to %{{.*}} step
// CHECK:           %[[IMAX:.*]] = arith.constant 2147483647 : i32
// CHECK:           %[[VMAX:.*]] = arith.constant 2147483647 : i32
// CHECK:           %[[R:.*]]:2 = scf.for %[[K:[^ ]*]] = {{.*}} iter_args(%{{.*}} = %[[VMAX]], %{{.*}} = %[[IMAX]]) -> (i32, i32) {
// CHECK-NEXT:        memref.load %[[X]][%[[K]], %[[J]]] : memref<4x8xi8>
// CHECK:             arith.extsi %{{.*}} : i8 to i32
// CHECK:             arith.cmpi slt
// CHECK:           memref.store %[[R]]#1, %[[OUT]][%[[J]]] : memref<8xi32>
func.func @argmin_cols_i8(%in: !blk.ptr<i8>, %out: !blk.ptr<i32>) {
  %r = blk.make_range 0 to 8 : tensor<8xi32>
  %r2 = blk.expand_dims %r axis = 0 : tensor<8xi32> -> tensor<1x8xi32>
  %r3 = blk.broadcast %r2 : tensor<1x8xi32> -> tensor<4x8xi32>
  %b = blk.splat %in : !blk.ptr<i8> -> tensor<4x8x!blk.ptr<i8>>
  %p = blk.addptr %b, %r3 : tensor<4x8x!blk.ptr<i8>>, tensor<4x8xi32>
  %x = blk.load %p : tensor<4x8x!blk.ptr<i8>>
  %i = blk.arg_reduce min %x axis = 0 : tensor<4x8xi8> -> tensor<8xi32>
  %o = blk.splat %out : !blk.ptr<i32> -> tensor<8x!blk.ptr<i32>>
  %q = blk.addptr %o, %r : tensor<8x!blk.ptr<i32>>, tensor<8xi32>
  blk.store %q, %i : tensor<8x!blk.ptr<i32>>
  return
}
