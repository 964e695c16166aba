// RUN: blockjit-opt %s --convert-blk-to-loops | FileCheck %s

// Which elementwise results get a stack buffer:
//  - an expensive op (math.*, divisions) used twice is computed once into a
//    buffer by a loop of its own, and both users read the buffer;
//  - used once, it is fused into its consumer's loop (no buffer);
//  - a cheap op (arith.subf, ...) is recomputed at every use, never buffered.
// The loaded block x itself is read before any store here, so it gets no
// buffer either: every loop that reads x loads it from memory again.

// CHECK-LABEL: func.func @exp_two_uses
// CHECK-SAME:    (%[[IN:[^:]*]]: !blk.ptr<f32>, %[[OUT:[^:]*]]: !blk.ptr<f32>)
// CHECK-NEXT:    %[[E:.*]] = memref.alloca() {alignment = 64 : i64} : memref<16xf32>
// CHECK-NOT:     memref.alloca
// CHECK-NOT:     memref.store
// CHECK-NOT:     math.exp
//                the loop that fills the buffer (reading x from memory)
//                also sums it (the sum is over all of it: no second pass) ...
// CHECK:         %[[SUM:.*]] = scf.for %[[I:[^ ]*]] = {{.*}} iter_args(%[[ACC:[^ ]*]] = %{{.*}}) -> (f32) {
// CHECK-NEXT:      %[[OFF:.*]] = arith.index_cast %[[I]] : index to i32
// CHECK-NEXT:      %[[PTR:.*]] = blk.addptr %[[IN]], %[[OFF]] : !blk.ptr<f32>, i32
// CHECK-NEXT:      %[[XI:.*]] = blk.load %[[PTR]] : !blk.ptr<f32>
// CHECK-NEXT:      %[[EI:.*]] = math.exp %[[XI]] : f32
// CHECK-NEXT:      memref.store %[[EI]], %[[E]][%[[I]]] : memref<16xf32>
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[ACC]], %[[EI]] fastmath<reassoc> : f32
// CHECK-NEXT:      scf.yield %[[S]] : f32
// CHECK-NEXT:    }
// CHECK-NOT:     math.exp
//                ... and the store reads the buffer; the division (one
//                use) is fused into it: a multiply by the sum's reciprocal
//                while the sum is in range (loops-divide-uniform.mlir), in a
//                copy of the loop that divides otherwise.
// CHECK:         scf.if %{{.*}} {
// CHECK:           scf.for %[[J:[^ ]*]] =
// CHECK:             %[[EJ:.*]] = memref.load %[[E]][%[[J]]] : memref<16xf32>
// CHECK-NEXT:        %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:        %[[R:.*]] = arith.divf %[[ONE]], %[[SUM]] : f32
// CHECK-NEXT:        %[[Y:.*]] = arith.mulf %[[EJ]], %[[R]] : f32
// CHECK-NEXT:        blk.store %{{.*}}, %[[Y]] : !blk.ptr<f32>
// CHECK:         } else {
// CHECK:           scf.for %[[K:[^ ]*]] =
// CHECK:             %[[EK:.*]] = memref.load %[[E]][%[[K]]] : memref<16xf32>
// CHECK-NEXT:        %[[Z:.*]] = arith.divf %[[EK]], %[[SUM]] : f32
// CHECK-NEXT:        blk.store %{{.*}}, %[[Z]] : !blk.ptr<f32>
// CHECK-NOT:     math.exp
// CHECK:         return
func.func @exp_two_uses(%in: !blk.ptr<f32>, %out: !blk.ptr<f32>) {
  %r = blk.make_range 0 to 16 : tensor<16xi32>
  %base = blk.splat %in : !blk.ptr<f32> -> tensor<16x!blk.ptr<f32>>
  %p = blk.addptr %base, %r : tensor<16x!blk.ptr<f32>>, tensor<16xi32>
  %x = blk.load %p : tensor<16x!blk.ptr<f32>>
  %e = math.exp %x : tensor<16xf32>
  %s = blk.reduce sum %e axis = 0 : tensor<16xf32> -> f32
  %sb = blk.splat %s : f32 -> tensor<16xf32>
  %y = arith.divf %e, %sb : tensor<16xf32>
  %ob = blk.splat %out : !blk.ptr<f32> -> tensor<16x!blk.ptr<f32>>
  %op = blk.addptr %ob, %r : tensor<16x!blk.ptr<f32>>, tensor<16xi32>
  blk.store %op, %y : tensor<16x!blk.ptr<f32>>
  return
}

// exp used once (by the sum) is computed in the sum's loop, from x loaded
// there: no buffer at all.
// CHECK-LABEL: func.func @exp_one_use
// CHECK-SAME:    (%[[IN:[^:]*]]: !blk.ptr<f32>, %[[OUT:[^:]*]]: !blk.ptr<f32>)
// CHECK-NOT:     memref
// CHECK-NOT:     math.exp
// CHECK:         %[[R:.*]] = scf.for %[[K:[^ ]*]] = {{.*}} iter_args(%[[ACC:[^ ]*]] = %{{.*}}) -> (f32) {
// CHECK-NEXT:      %[[OFF:.*]] = arith.index_cast %[[K]] : index to i32
// CHECK-NEXT:      %[[PTR:.*]] = blk.addptr %[[IN]], %[[OFF]] : !blk.ptr<f32>, i32
// CHECK-NEXT:      %[[XK:.*]] = blk.load %[[PTR]] : !blk.ptr<f32>
// CHECK-NEXT:      %[[EK:.*]] = math.exp %[[XK]] : f32
// CHECK-NEXT:      %[[A:.*]] = arith.addf %[[ACC]], %[[EK]] fastmath<reassoc> : f32
// CHECK-NEXT:      scf.yield %[[A]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    blk.store %[[OUT]], %[[R]] : !blk.ptr<f32>
// CHECK-NEXT:    return
func.func @exp_one_use(%in: !blk.ptr<f32>, %out: !blk.ptr<f32>) {
  %r = blk.make_range 0 to 16 : tensor<16xi32>
  %base = blk.splat %in : !blk.ptr<f32> -> tensor<16x!blk.ptr<f32>>
  %p = blk.addptr %base, %r : tensor<16x!blk.ptr<f32>>, tensor<16xi32>
  %x = blk.load %p : tensor<16x!blk.ptr<f32>>
  %e = math.exp %x : tensor<16xf32>
  %s = blk.reduce sum %e axis = 0 : tensor<16xf32> -> f32
  blk.store %out, %s : !blk.ptr<f32>
  return
}

// subf feeds two reductions, yet nothing is buffered: each reduction's
// loop loads x again and recomputes x - m.
// CHECK-LABEL: func.func @cheap_two_uses
// CHECK-SAME:    (%[[IN:[^:]*]]: !blk.ptr<f32>, %{{[^:]*}}: !blk.ptr<f32>, %[[M:[^:]*]]: f32)
// CHECK-NOT:     memref
// CHECK:         scf.for %[[K:[^ ]*]] = {{.*}} iter_args(%[[ACC:[^ ]*]] = %{{.*}}) -> (f32) {
// CHECK-NEXT:      %[[OFF:.*]] = arith.index_cast %[[K]] : index to i32
// CHECK-NEXT:      %[[PTR:.*]] = blk.addptr %[[IN]], %[[OFF]] : !blk.ptr<f32>, i32
// CHECK-NEXT:      %[[XK:.*]] = blk.load %[[PTR]] : !blk.ptr<f32>
// CHECK-NEXT:      %[[D:.*]] = arith.subf %[[XK]], %[[M]] : f32
// CHECK-NEXT:      arith.addf %[[ACC]], %[[D]]
// CHECK-NOT:     memref
// CHECK:         scf.for %[[K:[^ ]*]] = {{.*}} iter_args(%[[ACC:[^ ]*]] = %{{.*}}) -> (f32) {
// CHECK-NEXT:      %[[OFF:.*]] = arith.index_cast %[[K]] : index to i32
// CHECK-NEXT:      %[[PTR:.*]] = blk.addptr %[[IN]], %[[OFF]] : !blk.ptr<f32>, i32
// CHECK-NEXT:      %[[XK:.*]] = blk.load %[[PTR]] : !blk.ptr<f32>
// CHECK-NEXT:      %[[D:.*]] = arith.subf %[[XK]], %[[M]] : f32
// CHECK-NEXT:      arith.maximumf %[[ACC]], %[[D]]
// CHECK-NOT:     memref
// CHECK:         return
func.func @cheap_two_uses(%in: !blk.ptr<f32>, %out: !blk.ptr<f32>, %m: f32) {
  %r = blk.make_range 0 to 16 : tensor<16xi32>
  %base = blk.splat %in : !blk.ptr<f32> -> tensor<16x!blk.ptr<f32>>
  %p = blk.addptr %base, %r : tensor<16x!blk.ptr<f32>>, tensor<16xi32>
  %x = blk.load %p : tensor<16x!blk.ptr<f32>>
  %mb = blk.splat %m : f32 -> tensor<16xf32>
  %d = arith.subf %x, %mb : tensor<16xf32>
  %s = blk.reduce sum %d axis = 0 : tensor<16xf32> -> f32
  %t = blk.reduce max %d axis = 0 : tensor<16xf32> -> f32
  %c1 = arith.constant 1 : i32
  %o1 = blk.addptr %out, %c1 : !blk.ptr<f32>, i32
  blk.store %out, %s : !blk.ptr<f32>
  blk.store %o1, %t : !blk.ptr<f32>
  return
}
