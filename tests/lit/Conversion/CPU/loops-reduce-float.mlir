// RUN: blockjit-opt %s --convert-blk-to-loops | FileCheck %s

// 1-D f32 reductions of a loaded block are computed by the loop that loads
// it (one pass), each an accumulator started at the kind's identity: max
// from -inf (arith.maximumf), min from +inf (arith.minimumf), sum from 0
// (arith.addf with fastmath<reassoc>, so that the host compiler may vectorize
// the sum). The block is read only by reductions, so it is not copied into a
// buffer (no memref at all): the load's loop survives only to carry them.
// Max and min take fastmath<nsz> (a vector max then costs one instruction,
// not three); a result that comes out zero is recomputed with signed zeros by
// a loop that reloads the block from memory (blk.load again), so
// maximum(-0, +0) is still +0.

// CHECK-LABEL: func.func @reduce_f32
// CHECK-SAME:    (%[[IN:[^:]*]]: !blk.ptr<f32>, %[[OUT:[^:]*]]: !blk.ptr<f32>)
// CHECK-DAG:     %[[SUM_INIT:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG:     %[[MIN_INIT:.*]] = arith.constant 0x7F800000 : f32
// CHECK-DAG:     %[[MAX_INIT:.*]] = arith.constant 0xFF800000 : f32
// CHECK-NOT:     memref.
// CHECK:         %[[R:.*]]:3 = scf.for %[[I:[^ ]*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[MX:[^ ]*]] = %[[MAX_INIT]], %[[MN:[^ ]*]] = %[[MIN_INIT]], %[[SM:[^ ]*]] = %[[SUM_INIT]]) -> (f32, f32, f32) {
// CHECK-NEXT:      %[[IDX:.*]] = arith.index_cast %[[I]] : index to i32
// CHECK-NEXT:      %[[P:.*]] = blk.addptr %[[IN]], %[[IDX]] : !blk.ptr<f32>, i32
// CHECK-NEXT:      %[[E:.*]] = blk.load %[[P]] : !blk.ptr<f32>
// CHECK-NEXT:      %[[MX2:.*]] = arith.maximumf %[[MX]], %[[E]] fastmath<nsz> : f32
// CHECK-NEXT:      %[[MN2:.*]] = arith.minimumf %[[MN]], %[[E]] fastmath<nsz> : f32
// CHECK-NEXT:      %[[SM2:.*]] = arith.addf %[[SM]], %[[E]] fastmath<reassoc> : f32
// CHECK-NEXT:      scf.yield %[[MX2]], %[[MN2]], %[[SM2]] : f32, f32, f32
// CHECK-NEXT:    }
//                a zero max: again, with signed zeros
// CHECK:         %[[MXZ:.*]] = arith.cmpf oeq, %[[R]]#0, %{{.*}} : f32
// CHECK-NEXT:    %[[MAX:.*]] = scf.if %[[MXZ]] -> (f32) {
// CHECK-DAG:       %[[MAX_INIT2:.*]] = arith.constant 0xFF800000 : f32
// CHECK:           %[[MAXZ:.*]] = scf.for %[[J:[^ ]*]] = {{.*}} iter_args(%[[A:[^ ]*]] = %[[MAX_INIT2]]) -> (f32) {
// CHECK-NEXT:        %[[JDX:.*]] = arith.index_cast %[[J]] : index to i32
// CHECK-NEXT:        %[[Q:.*]] = blk.addptr %[[IN]], %[[JDX]] : !blk.ptr<f32>, i32
// CHECK-NEXT:        %[[F:.*]] = blk.load %[[Q]] : !blk.ptr<f32>
// CHECK-NEXT:        %[[A2:.*]] = arith.maximumf %[[A]], %[[F]] : f32
// CHECK-NEXT:        scf.yield %[[A2]] : f32
// CHECK-NEXT:      }
// CHECK-NEXT:      scf.yield %[[MAXZ]] : f32
// CHECK-NEXT:    } else {
// CHECK-NEXT:      scf.yield %[[R]]#0 : f32
// CHECK-NEXT:    }
//                a zero min: likewise
// CHECK:         %[[MNZ:.*]] = arith.cmpf oeq, %[[R]]#1, %{{.*}} : f32
// CHECK-NEXT:    %[[MIN:.*]] = scf.if %[[MNZ]] -> (f32) {
// CHECK:             %[[G:.*]] = blk.load %{{.*}} : !blk.ptr<f32>
// CHECK-NEXT:        arith.minimumf %{{[^ ]*}}, %[[G]] : f32
// CHECK:         } else {
// CHECK-NEXT:      scf.yield %[[R]]#1 : f32
// CHECK-NEXT:    }
// CHECK-NOT:     scf.for
// CHECK-NOT:     memref.
// CHECK:         blk.store %[[OUT]], %[[MAX]]
// CHECK:         blk.store %{{.*}}, %[[MIN]]
// CHECK:         blk.store %{{.*}}, %[[R]]#2
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
