// RUN: blockjit-opt %s --convert-blk-to-loops | FileCheck %s

// Integer reductions are signed: max from INT_MIN (arith.maxsi), min from
// INT_MAX (arith.minsi), sum from 0 (arith.addi), at the element's width,
// all three carried by the loop that loads the block. The block is read only
// by its reductions, so it is not copied into a buffer (no memref.alloca, no
// memref.store): the load's loop survives only to carry the reductions.

// CHECK-LABEL: func.func @reduce_i32
// CHECK-SAME:    (%{{[^:]*}}: !blk.ptr<i32>, %[[OUT:[^:]*]]: !blk.ptr<i32>)
// CHECK-DAG:     %[[MAX_INIT:.*]] = arith.constant -2147483648 : i32
// CHECK-DAG:     %[[MIN_INIT:.*]] = arith.constant 2147483647 : i32
// CHECK-DAG:     %[[SUM_INIT:.*]] = arith.constant 0 : i32
// CHECK-NOT:     memref.
// CHECK:         %[[R:.*]]:3 = scf.for %[[I:[^ ]*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[MX:[^ ]*]] = %[[MAX_INIT]], %[[MN:[^ ]*]] = %[[MIN_INIT]], %[[SM:[^ ]*]] = %[[SUM_INIT]]) -> (i32, i32, i32) {
// CHECK-NEXT:      %[[IDX:.*]] = arith.index_cast %[[I]] : index to i32
// CHECK-NEXT:      %[[P:.*]] = blk.addptr %{{.*}}, %[[IDX]]
// CHECK-NEXT:      %[[E:.*]] = blk.load %[[P]] : !blk.ptr<i32>
// CHECK-NEXT:      %[[MX2:.*]] = arith.maxsi %[[MX]], %[[E]] : i32
// CHECK-NEXT:      %[[MN2:.*]] = arith.minsi %[[MN]], %[[E]] : i32
// CHECK-NEXT:      %[[SM2:.*]] = arith.addi %[[SM]], %[[E]] : i32
// CHECK-NEXT:      scf.yield %[[MX2]], %[[MN2]], %[[SM2]] : i32, i32, i32
// CHECK-NEXT:    }
// CHECK-NOT:     scf.for
// CHECK-NOT:     memref.
// CHECK:         blk.store %[[OUT]], %[[R]]#0
// CHECK:         blk.store %{{.*}}, %[[R]]#1
// CHECK:         blk.store %{{.*}}, %[[R]]#2
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
// CHECK-DAG:     %[[MAX_INIT:.*]] = arith.constant -128 : i8
// CHECK-DAG:     %[[MIN_INIT:.*]] = arith.constant 127 : i8
// CHECK-DAG:     %[[SUM_INIT:.*]] = arith.constant 0 : i8
// CHECK-NOT:     memref.
// CHECK:         %[[R:.*]]:3 = scf.for %[[I:[^ ]*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[MX:[^ ]*]] = %[[MAX_INIT]], %[[MN:[^ ]*]] = %[[MIN_INIT]], %[[SM:[^ ]*]] = %[[SUM_INIT]]) -> (i8, i8, i8) {
// CHECK-NEXT:      %[[IDX:.*]] = arith.index_cast %[[I]] : index to i32
// CHECK-NEXT:      %[[P:.*]] = blk.addptr %{{.*}}, %[[IDX]]
// CHECK-NEXT:      %[[E:.*]] = blk.load %[[P]] : !blk.ptr<i8>
// CHECK-NEXT:      %[[MX2:.*]] = arith.maxsi %[[MX]], %[[E]] : i8
// CHECK-NEXT:      %[[MN2:.*]] = arith.minsi %[[MN]], %[[E]] : i8
// CHECK-NEXT:      %[[SM2:.*]] = arith.addi %[[SM]], %[[E]] : i8
// CHECK-NEXT:      scf.yield %[[MX2]], %[[MN2]], %[[SM2]] : i8, i8, i8
// CHECK-NEXT:    }
// CHECK-NOT:     scf.for
// CHECK-NOT:     memref.
// CHECK:         blk.store %[[OUT]], %[[R]]#0
// CHECK:         blk.store %{{.*}}, %[[R]]#1
// CHECK:         blk.store %{{.*}}, %[[R]]#2
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
