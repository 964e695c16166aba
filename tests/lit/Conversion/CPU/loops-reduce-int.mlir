// RUN: blockjit-opt %s --convert-blk-to-loops | FileCheck %s

// Integer reductions are signed: max from INT_MIN (arith.maxsi), min from
// INT_MAX (arith.minsi), sum from 0 (arith.addi), at the element's width.

// CHECK-LABEL: func.func @reduce_i32
// CHECK-SAME:    (%{{[^:]*}}: !blk.ptr<i32>, %[[OUT:[^:]*]]: !blk.ptr<i32>)
// CHECK-NEXT:    %[[X:.*]] = memref.alloca() {alignment = 64 : i64} : memref<16xi32>
// CHECK-NOT:     memref.alloca
// CHECK:         %[[MAX_INIT:.*]] = arith.constant -2147483648 : i32
// CHECK:         %[[MAX:.*]] = scf.for %[[I:[^ ]*]] = {{.*}} iter_args(%[[ACC:[^ ]*]] = %[[MAX_INIT]]) -> (i32) {
// CHECK-NEXT:      %[[E:.*]] = memref.load %[[X]][%[[I]]] : memref<16xi32>
// CHECK-NEXT:      %[[R:.*]] = arith.maxsi %[[ACC]], %[[E]] : i32
// CHECK-NEXT:      scf.yield %[[R]] : i32
// CHECK-NEXT:    }
// CHECK:         %[[MIN_INIT:.*]] = arith.constant 2147483647 : i32
// CHECK:         %[[MIN:.*]] = scf.for %[[I:[^ ]*]] = {{.*}} iter_args(%[[ACC:[^ ]*]] = %[[MIN_INIT]]) -> (i32) {
// CHECK-NEXT:      %[[E:.*]] = memref.load %[[X]][%[[I]]] : memref<16xi32>
// CHECK-NEXT:      %[[R:.*]] = arith.minsi %[[ACC]], %[[E]] : i32
// CHECK-NEXT:      scf.yield %[[R]] : i32
// CHECK-NEXT:    }
// CHECK:         %[[SUM_INIT:.*]] = arith.constant 0 : i32
// CHECK:         %[[SUM:.*]] = scf.for %[[I:[^ ]*]] = {{.*}} iter_args(%[[ACC:[^ ]*]] = %[[SUM_INIT]]) -> (i32) {
// CHECK-NEXT:      %[[E:.*]] = memref.load %[[X]][%[[I]]] : memref<16xi32>
// CHECK-NEXT:      %[[R:.*]] = arith.addi %[[ACC]], %[[E]] : i32
// CHECK-NEXT:      scf.yield %[[R]] : i32
// CHECK-NEXT:    }
// CHECK:         blk.store %[[OUT]], %[[MAX]]
// CHECK:         blk.store %{{.*}}, %[[MIN]]
// CHECK:         blk.store %{{.*}}, %[[SUM]]
func.func @reduce_i32(%in: !blk.ptr<i32>, %out: !blk.ptr<i32>) {
  %r = blk.make_range 0 to 16 : tensor<16xi32>
  %base = blk.splat %in : !blk.ptr<i32> -> tensor<16x!blk.ptr<i32>>
  %p = blk.addptr %base, %r : tensor<16x!blk.ptr<i32>>, tensor<16xi32>
  %x = blk.load %p : tensor<16x!blk.ptr<i32>>
  %mx = blk.reduce max %x axis = 0 : tensor<16xi32> -> i32
  %mn = blk.reduce min %x axis = 0 : tensor<16xi32> -> i32
  %sm = blk.reduce sum %x axis = 0 : tensor<16xi32> -> i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %o1 = blk.addptr %out, %c1 : !blk.ptr<i32>, i32
  %o2 = blk.addptr %out, %c2 : !blk.ptr<i32>, i32
  blk.store %out, %mx : !blk.ptr<i32>
  blk.store %o1, %mn : !blk.ptr<i32>
  blk.store %o2, %sm : !blk.ptr<i32>
  return
}

// CHECK-LABEL: func.func @reduce_i8
// CHECK-SAME:    (%{{[^:]*}}: !blk.ptr<i8>, %[[OUT:[^:]*]]: !blk.ptr<i8>)
// CHECK-NEXT:    %[[X:.*]] = memref.alloca() {alignment = 64 : i64} : memref<16xi8>
// CHECK-NOT:     memref.alloca
// CHECK:         %[[MAX_INIT:.*]] = arith.constant -128 : i8
// CHECK:         %[[MAX:.*]] = scf.for %[[I:[^ ]*]] = {{.*}} iter_args(%[[ACC:[^ ]*]] = %[[MAX_INIT]]) -> (i8) {
// CHECK-NEXT:      %[[E:.*]] = memref.load %[[X]][%[[I]]] : memref<16xi8>
// CHECK-NEXT:      %[[R:.*]] = arith.maxsi %[[ACC]], %[[E]] : i8
// CHECK-NEXT:      scf.yield %[[R]] : i8
// CHECK-NEXT:    }
// CHECK:         %[[MIN_INIT:.*]] = arith.constant 127 : i8
// CHECK:         %[[MIN:.*]] = scf.for %[[I:[^ ]*]] = {{.*}} iter_args(%[[ACC:[^ ]*]] = %[[MIN_INIT]]) -> (i8) {
// CHECK-NEXT:      %[[E:.*]] = memref.load %[[X]][%[[I]]] : memref<16xi8>
// CHECK-NEXT:      %[[R:.*]] = arith.minsi %[[ACC]], %[[E]] : i8
// CHECK-NEXT:      scf.yield %[[R]] : i8
// CHECK-NEXT:    }
// CHECK:         %[[SUM_INIT:.*]] = arith.constant 0 : i8
// CHECK:         %[[SUM:.*]] = scf.for %[[I:[^ ]*]] = {{.*}} iter_args(%[[ACC:[^ ]*]] = %[[SUM_INIT]]) -> (i8) {
// CHECK-NEXT:      %[[E:.*]] = memref.load %[[X]][%[[I]]] : memref<16xi8>
// CHECK-NEXT:      %[[R:.*]] = arith.addi %[[ACC]], %[[E]] : i8
// CHECK-NEXT:      scf.yield %[[R]] : i8
// CHECK-NEXT:    }
// CHECK:         blk.store %[[OUT]], %[[MAX]]
// CHECK:         blk.store %{{.*}}, %[[MIN]]
// CHECK:         blk.store %{{.*}}, %[[SUM]]
func.func @reduce_i8(%in: !blk.ptr<i8>, %out: !blk.ptr<i8>) {
  %r = blk.make_range 0 to 16 : tensor<16xi32>
  %base = blk.splat %in : !blk.ptr<i8> -> tensor<16x!blk.ptr<i8>>
  %p = blk.addptr %base, %r : tensor<16x!blk.ptr<i8>>, tensor<16xi32>
  %x = blk.load %p : tensor<16x!blk.ptr<i8>>
  %mx = blk.reduce max %x axis = 0 : tensor<16xi8> -> i8
  %mn = blk.reduce min %x axis = 0 : tensor<16xi8> -> i8
  %sm = blk.reduce sum %x axis = 0 : tensor<16xi8> -> i8
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %o1 = blk.addptr %out, %c1 : !blk.ptr<i8>, i32
  %o2 = blk.addptr %out, %c2 : !blk.ptr<i8>, i32
  blk.store %out, %mx : !blk.ptr<i8>
  blk.store %o1, %mn : !blk.ptr<i8>
  blk.store %o2, %sm : !blk.ptr<i8>
  return
}
