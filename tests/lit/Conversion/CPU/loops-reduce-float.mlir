// RUN: blockjit-opt %s --convert-blk-to-loops | FileCheck %s

// A 1-D f32 reduction is an scf.for carrying the accumulator, started at the
// kind's identity: max from -inf (arith.maximumf), min from +inf
// (arith.minimumf), sum from 0 (arith.addf with fastmath<reassoc>, so that
// the host compiler may vectorize the sum). The result is a plain scalar:
// no buffer beyond the loaded block's.

// CHECK-LABEL: func.func @reduce_f32
// CHECK-SAME:    (%{{[^:]*}}: !blk.ptr<f32>, %[[OUT:[^:]*]]: !blk.ptr<f32>)
// CHECK-NEXT:    %[[X:.*]] = memref.alloca() {alignment = 64 : i64} : memref<16xf32>
// CHECK-NOT:     memref.alloca
// CHECK:         %[[MAX_INIT:.*]] = arith.constant 0xFF800000 : f32
// CHECK:         %[[MAX:.*]] = scf.for %[[I:[^ ]*]] = {{.*}} iter_args(%[[ACC:[^ ]*]] = %[[MAX_INIT]]) -> (f32) {
// CHECK-NEXT:      %[[E:.*]] = memref.load %[[X]][%[[I]]] : memref<16xf32>
// CHECK-NEXT:      %[[R:.*]] = arith.maximumf %[[ACC]], %[[E]] : f32
// CHECK-NEXT:      scf.yield %[[R]] : f32
// CHECK-NEXT:    }
// CHECK:         %[[MIN_INIT:.*]] = arith.constant 0x7F800000 : f32
// CHECK:         %[[MIN:.*]] = scf.for %[[I:[^ ]*]] = {{.*}} iter_args(%[[ACC:[^ ]*]] = %[[MIN_INIT]]) -> (f32) {
// CHECK-NEXT:      %[[E:.*]] = memref.load %[[X]][%[[I]]] : memref<16xf32>
// CHECK-NEXT:      %[[R:.*]] = arith.minimumf %[[ACC]], %[[E]] : f32
// CHECK-NEXT:      scf.yield %[[R]] : f32
// CHECK-NEXT:    }
// CHECK:         %[[SUM_INIT:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[SUM:.*]] = scf.for %[[I:[^ ]*]] = {{.*}} iter_args(%[[ACC:[^ ]*]] = %[[SUM_INIT]]) -> (f32) {
// CHECK-NEXT:      %[[E:.*]] = memref.load %[[X]][%[[I]]] : memref<16xf32>
// CHECK-NEXT:      %[[R:.*]] = arith.addf %[[ACC]], %[[E]] fastmath<reassoc> : f32
// CHECK-NEXT:      scf.yield %[[R]] : f32
// CHECK-NEXT:    }
// CHECK:         blk.store %[[OUT]], %[[MAX]]
// CHECK:         blk.store %{{.*}}, %[[MIN]]
// CHECK:         blk.store %{{.*}}, %[[SUM]]
func.func @reduce_f32(%in: !blk.ptr<f32>, %out: !blk.ptr<f32>) {
  %r = blk.make_range 0 to 16 : tensor<16xi32>
  %base = blk.splat %in : !blk.ptr<f32> -> tensor<16x!blk.ptr<f32>>
  %p = blk.addptr %base, %r : tensor<16x!blk.ptr<f32>>, tensor<16xi32>
  %x = blk.load %p : tensor<16x!blk.ptr<f32>>
  %mx = blk.reduce max %x axis = 0 : tensor<16xf32> -> f32
  %mn = blk.reduce min %x axis = 0 : tensor<16xf32> -> f32
  %sm = blk.reduce sum %x axis = 0 : tensor<16xf32> -> f32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %o1 = blk.addptr %out, %c1 : !blk.ptr<f32>, i32
  %o2 = blk.addptr %out, %c2 : !blk.ptr<f32>, i32
  blk.store %out, %mx : !blk.ptr<f32>
  blk.store %o1, %mn : !blk.ptr<f32>
  blk.store %o2, %sm : !blk.ptr<f32>
  return
}
