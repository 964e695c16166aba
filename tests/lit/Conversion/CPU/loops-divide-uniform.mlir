// RUN: blockjit-opt %s --split-input-file --convert-blk-to-loops | FileCheck %s

// A loop whose elements divide by a value equal at every element (a splat of
// a scalar defined before the loop, such as a row's sum) runs in two copies:
// while 2^-126 <= |s| <= 2^126 (f32; ordered compares, so NaN is out of
// range) the copy that multiplies by 1/s (within 1.5 ulp; the host compiler
// hoists 1/s out of the loop, where a vector division per element was the
// bound), else the copy that divides.

// CHECK-LABEL: func.func @divide_by_scalar
// CHECK-SAME:    (%[[IN:[^:]*]]: !blk.ptr<f32>, %[[OUT:[^:]*]]: !blk.ptr<f32>, %[[S:[^:]*]]: f32)
// CHECK:         %[[ABS:.*]] = math.absf %[[S]] : f32
// CHECK-DAG:     %[[BELOW:.*]] = arith.cmpf ole, %[[ABS]], %{{.*}} : f32
// CHECK-DAG:     %[[ABOVE:.*]] = arith.cmpf oge, %[[ABS]], %{{.*}} : f32
// CHECK:         %[[IN_RANGE:.*]] = arith.andi %[[ABOVE]], %[[BELOW]] : i1
// CHECK-NEXT:    scf.if %[[IN_RANGE]] {
// CHECK:           scf.for
// CHECK:             %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:        %[[R:.*]] = arith.divf %[[ONE]], %[[S]] : f32
// CHECK-NEXT:        %[[Y:.*]] = arith.mulf %{{.*}}, %[[R]] : f32
// CHECK-NEXT:        blk.store %{{.*}}, %[[Y]] : !blk.ptr<f32>
// CHECK:         } else {
// CHECK:           scf.for
// CHECK:             %[[Z:.*]] = arith.divf %{{.*}}, %[[S]] : f32
// CHECK-NEXT:        blk.store %{{.*}}, %[[Z]] : !blk.ptr<f32>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    return
func.func @divide_by_scalar(%in: !blk.ptr<f32>, %out: !blk.ptr<f32>, %s: f32) {
  %r = blk.make_range 0 to 64 : tensor<64xi32>
  %ib = blk.splat %in : !blk.ptr<f32> -> tensor<64x!blk.ptr<f32>>
  %ip = blk.addptr %ib, %r : tensor<64x!blk.ptr<f32>>, tensor<64xi32>
  %x = blk.load %ip : tensor<64x!blk.ptr<f32>>
  %sb = blk.splat %s : f32 -> tensor<64xf32>
  %y = arith.divf %x, %sb : tensor<64xf32>
  %ob = blk.splat %out : !blk.ptr<f32> -> tensor<64x!blk.ptr<f32>>
  %op = blk.addptr %ob, %r : tensor<64x!blk.ptr<f32>>, tensor<64xi32>
  blk.store %op, %y : tensor<64x!blk.ptr<f32>>
  return
}

// -----

// Divisors that differ from element to element, and a uniform divisor
// recomputed inside the loop (s + t, cheap, so never buffered), divide in one
// loop: there is nothing to test before it.
// CHECK-LABEL: func.func @divide_exactly
// CHECK-NOT:     scf.if
// CHECK:         scf.for
// CHECK:           %[[ST:.*]] = arith.addf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:      %[[Q:.*]] = arith.divf %{{.*}}, %[[ST]] : f32
// CHECK:           arith.divf %[[Q]], %{{.*}} : f32
// CHECK-NOT:     arith.mulf
// CHECK-NOT:     scf.if
// CHECK:         return
func.func @divide_exactly(%in: !blk.ptr<f32>, %out: !blk.ptr<f32>, %s: f32, %t: f32) {
  %r = blk.make_range 0 to 64 : tensor<64xi32>
  %ib = blk.splat %in : !blk.ptr<f32> -> tensor<64x!blk.ptr<f32>>
  %ip = blk.addptr %ib, %r : tensor<64x!blk.ptr<f32>>, tensor<64xi32>
  %x = blk.load %ip : tensor<64x!blk.ptr<f32>>
  %sb = blk.splat %s : f32 -> tensor<64xf32>
  %tb = blk.splat %t : f32 -> tensor<64xf32>
  %st = arith.addf %sb, %tb : tensor<64xf32>
  %q = arith.divf %x, %st : tensor<64xf32>
  %y = arith.divf %q, %x : tensor<64xf32>
  %ob = blk.splat %out : !blk.ptr<f32> -> tensor<64x!blk.ptr<f32>>
  %op = blk.addptr %ob, %r : tensor<64x!blk.ptr<f32>>, tensor<64xi32>
  blk.store %op, %y : tensor<64x!blk.ptr<f32>>
  return
}

// -----

// f64 divisors test the double range (2^-1022 <= |s| <= 2^1022).
// CHECK-LABEL: func.func @divide_f64
// CHECK:         %[[ABS:.*]] = math.absf %{{.*}} : f64
// CHECK-DAG:     arith.cmpf ole, %[[ABS]], %{{.*}} : f64
// CHECK-DAG:     arith.cmpf oge, %[[ABS]], %{{.*}} : f64
// CHECK:         scf.if
// CHECK:           arith.mulf %{{.*}}, %{{.*}} : f64
// CHECK:         } else {
// CHECK:           arith.divf %{{.*}}, %{{.*}} : f64
func.func @divide_f64(%in: !blk.ptr<f64>, %s: f64) {
  %r = blk.make_range 0 to 32 : tensor<32xi32>
  %ib = blk.splat %in : !blk.ptr<f64> -> tensor<32x!blk.ptr<f64>>
  %ip = blk.addptr %ib, %r : tensor<32x!blk.ptr<f64>>, tensor<32xi32>
  %x = blk.load %ip : tensor<32x!blk.ptr<f64>>
  %sb = blk.splat %s : f64 -> tensor<32xf64>
  %y = arith.divf %x, %sb : tensor<32xf64>
  blk.store %ip, %y : tensor<32x!blk.ptr<f64>>
  return
}

// -----

// bf16 (and f16) divide exactly: 1.5 of their ulps is no bound worth having.
// CHECK-LABEL: func.func @divide_bf16
// CHECK-NOT:     scf.if
// CHECK:         arith.divf %{{.*}}, %{{.*}} : bf16
// CHECK-NOT:     arith.mulf
// CHECK:         return
func.func @divide_bf16(%in: !blk.ptr<bf16>, %s: bf16) {
  %r = blk.make_range 0 to 32 : tensor<32xi32>
  %ib = blk.splat %in : !blk.ptr<bf16> -> tensor<32x!blk.ptr<bf16>>
  %ip = blk.addptr %ib, %r : tensor<32x!blk.ptr<bf16>>, tensor<32xi32>
  %x = blk.load %ip : tensor<32x!blk.ptr<bf16>>
  %sb = blk.splat %s : bf16 -> tensor<32xbf16>
  %y = arith.divf %x, %sb : tensor<32xbf16>
  blk.store %ip, %y : tensor<32x!blk.ptr<bf16>>
  return
}
