// RUN: blockjit-opt %s --convert-blk-to-loops | FileCheck %s

// f16 and bf16 reductions accumulate in f32, as on the GPU: the identity is
// an f32 constant, every element is widened with arith.extf inside the loop,
// the loop carries f32, and the result is narrowed with one arith.truncf
// after the loop. The block is read only by its reductions, so it is not
// copied into an f16 buffer (no memref): the loop that loads it carries the
// reductions, and the signed-zero fallback of max/min reloads the block from
// memory (blk.load again), widening each element in the same way.

// CHECK-LABEL: func.func @reduce_f16
// CHECK-SAME:    (%[[IN:[^:]*]]: !blk.ptr<f16>, %[[OUT:[^:]*]]: !blk.ptr<f16>)
// CHECK-DAG:     %[[MAX_INIT:.*]] = arith.constant 0xFF800000 : f32
// CHECK-DAG:     %[[SUM_INIT:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NOT:     memref.
// CHECK:         %[[R:.*]]:2 = scf.for %[[I:[^ ]*]] = {{.*}} iter_args(%[[MA:[^ ]*]] = %[[MAX_INIT]], %[[SA:[^ ]*]] = %[[SUM_INIT]]) -> (f32, f32) {
// CHECK-NEXT:      %[[IDX:.*]] = arith.index_cast %[[I]] : index to i32
// CHECK-NEXT:      %[[P:.*]] = blk.addptr %[[IN]], %[[IDX]] : !blk.ptr<f16>, i32
// CHECK-NEXT:      %[[E:.*]] = blk.load %[[P]] : !blk.ptr<f16>
// CHECK-NEXT:      %[[W:.*]] = arith.extf %[[E]] : f16 to f32
// CHECK-NEXT:      %[[M:.*]] = arith.maximumf %[[MA]], %[[W]] fastmath<nsz> : f32
// CHECK-NEXT:      %[[W2:.*]] = arith.extf %[[E]] : f16 to f32
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[SA]], %[[W2]] fastmath<reassoc> : f32
// CHECK-NEXT:      scf.yield %[[M]], %[[S]] : f32, f32
// CHECK-NEXT:    }
//                a zero max: again, with signed zeros, from memory
// CHECK:         %[[MXZ:.*]] = arith.cmpf oeq, %[[R]]#0, %{{.*}} : f32
// CHECK-NEXT:    %[[MAX:.*]] = scf.if %[[MXZ]] -> (f32) {
// CHECK:             %[[F:.*]] = blk.load %{{.*}} : !blk.ptr<f16>
// CHECK-NEXT:        %[[FW:.*]] = arith.extf %[[F]] : f16 to f32
// CHECK-NEXT:        arith.maximumf %{{[^ ]*}}, %[[FW]] : f32
// CHECK:         } else {
// CHECK-NEXT:      scf.yield %[[R]]#0 : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[MAX16:.*]] = arith.truncf %[[MAX]] : f32 to f16
// CHECK-NEXT:    %[[SUM16:.*]] = arith.truncf %[[R]]#1 : f32 to f16
// CHECK:         blk.store %[[OUT]], %[[MAX16]] : !blk.ptr<f16>
// CHECK:         blk.store %{{.*}}, %[[SUM16]] : !blk.ptr<f16>
func.func @reduce_f16(%in: !blk.ptr<f16>, %out: !blk.ptr<f16>) {
  %r = blk.make_range 0 to 16 : tensor<16xi32>
  %base = blk.splat %in : !blk.ptr<f16> -> tensor<16x!blk.ptr<f16>>
  %p = blk.addptr %base, %r : tensor<16x!blk.ptr<f16>>, tensor<16xi32>
  %x = blk.load %p : tensor<16x!blk.ptr<f16>>
  %mx = blk.reduce max %x axis = 0 : tensor<16xf16> -> f16
  %sm = blk.reduce sum %x axis = 0 : tensor<16xf16> -> f16
  %c1 = arith.constant 1 : i32
  %o1 = blk.addptr %out, %c1 : !blk.ptr<f16>, i32
  blk.store %out, %mx : !blk.ptr<f16>
  blk.store %o1, %sm : !blk.ptr<f16>
  return
}

// CHECK-LABEL: func.func @reduce_bf16
// CHECK:         %[[MIN_INIT:.*]] = arith.constant 0x7F800000 : f32
// CHECK-NOT:     memref.
// CHECK:         %[[R:.*]] = scf.for {{.*}} iter_args(%[[ACC:[^ ]*]] = %[[MIN_INIT]]) -> (f32) {
// CHECK-NOT:       memref.
// CHECK:           %[[E:.*]] = blk.load %{{.*}} : !blk.ptr<bf16>
// CHECK-NEXT:      %[[W:.*]] = arith.extf %[[E]] : bf16 to f32
// CHECK-NEXT:      %[[M:.*]] = arith.minimumf %[[ACC]], %[[W]] fastmath<nsz> : f32
// CHECK-NEXT:      scf.yield %[[M]] : f32
// CHECK-NEXT:    }
// CHECK:         %[[MIN:.*]] = scf.if
// CHECK:             %[[F:.*]] = blk.load %{{.*}} : !blk.ptr<bf16>
// CHECK-NEXT:        %[[FW:.*]] = arith.extf %[[F]] : bf16 to f32
// CHECK-NEXT:        arith.minimumf %{{[^ ]*}}, %[[FW]] : f32
// CHECK-NOT:     memref.
// CHECK:         %[[MIN16:.*]] = arith.truncf %[[MIN]] : f32 to bf16
// CHECK:         blk.store %{{.*}}, %[[MIN16]] : !blk.ptr<bf16>
func.func @reduce_bf16(%in: !blk.ptr<bf16>, %out: !blk.ptr<bf16>) {
  %r = blk.make_range 0 to 16 : tensor<16xi32>
  %base = blk.splat %in : !blk.ptr<bf16> -> tensor<16x!blk.ptr<bf16>>
  %p = blk.addptr %base, %r : tensor<16x!blk.ptr<bf16>>, tensor<16xi32>
  %x = blk.load %p : tensor<16x!blk.ptr<bf16>>
  %mn = blk.reduce min %x axis = 0 : tensor<16xbf16> -> bf16
  blk.store %out, %mn : !blk.ptr<bf16>
  return
}
