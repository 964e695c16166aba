// RUN: blockjit-opt %s --blockjit-gpu-pipeline --split-input-file | FileCheck %s \
// RUN:   --implicit-check-not=llvm.intr.sin --implicit-check-not=llvm.intr.cos \
// RUN:   --implicit-check-not=llvm.intr.tanh --implicit-check-not=llvm.intr.pow \
// RUN:   --implicit-check-not=llvm.intr.exp --implicit-check-not=llvm.intr.log \
// RUN:   --implicit-check-not=llvm.call --implicit-check-not=": f32"

// f64 sin, cos, tanh, erf and pow have their own expansions on the GPU
// (compiler/MathLowering.cpp; they were specialization errors): no math
// intrinsic but fma, roundeven, floor, fabs and copysign is left, no libm
// call, and nothing is computed in f32.

// sin/cos: k = roundeven(|x| 2/pi), the Cody-Waite steps as fmas, the
// quadrant k mod 4 through floor; from 2^50 on a branch to Payne-Hanek:
// 64 x 64 -> 128-bit products of the mantissa and the bits of 2/pi; the
// branches join with the quadrant and the double-double remainder.
// CHECK-LABEL: llvm.func @sin_cos_f64_block
// CHECK:         llvm.intr.fabs(%{{.*}}) : (f64) -> f64
// CHECK:         llvm.intr.roundeven(%{{.*}}) : (f64) -> f64
// CHECK:         llvm.intr.fma
// CHECK:         llvm.intr.floor(%{{.*}}) : (f64) -> f64
// CHECK:         llvm.fptosi %{{.*}} : f64 to i64
// CHECK:         llvm.cond_br
// CHECK:         llvm.mul %{{.*}} : i128
// CHECK:         llvm.mul %{{.*}} : i128
// CHECK:         llvm.mul %{{.*}} : i64
// CHECK:         llvm.uitofp %{{.*}} : i64 to f64
// CHECK:         ^bb{{[0-9]+}}(%{{.*}}: i64, %{{.*}}: f64, %{{.*}}: f64):
// CHECK:         llvm.xor %{{.*}} : i64
// CHECK:         llvm.intr.roundeven(%{{.*}}) : (f64) -> f64
// CHECK:         llvm.cond_br
// CHECK:         llvm.store
func.func @sin_cos_f64_block(%in: !blk.ptr<f64>) {
  %r = blk.make_range 0 to 128 : tensor<128xi32>
  %b = blk.splat %in : !blk.ptr<f64> -> tensor<128x!blk.ptr<f64>>
  %p = blk.addptr %b, %r : tensor<128x!blk.ptr<f64>>, tensor<128xi32>
  %x = blk.load %p : tensor<128x!blk.ptr<f64>>
  %s = math.sin %x : tensor<128xf64>
  %c = math.cos %s : tensor<128xf64>
  blk.store %p, %c : tensor<128x!blk.ptr<f64>>
  return
}

// -----

// tanh: expm1's 2^k built from bits, then -u / (u + 2) and copysign.
// CHECK-LABEL: llvm.func @tanh_f64_scalar
// CHECK:         llvm.intr.roundeven(%{{.*}}) : (f64) -> f64
// CHECK:         llvm.shl %{{.*}} : i64
// CHECK:         llvm.fdiv %{{.*}} : f64
// CHECK:         llvm.intr.copysign
// CHECK:         llvm.store
func.func @tanh_f64_scalar(%in: !blk.ptr<f64>) {
  %x = blk.load %in : !blk.ptr<f64>
  %t = math.tanh %x : f64
  blk.store %in, %t : !blk.ptr<f64>
  return
}

// -----

// erf: the Taylor series, the fit's coefficients chosen by interval
// (selects), exp(-x^2) with x^2 as a double-double.
// CHECK-LABEL: llvm.func @erf_f64_scalar
// CHECK-NOT:     @erf
// CHECK:         llvm.intr.fma
// CHECK:         llvm.select %{{.*}} : i1, f64
// CHECK:         llvm.intr.roundeven(%{{.*}}) : (f64) -> f64
// CHECK:         llvm.intr.copysign
// CHECK:         llvm.store
func.func @erf_f64_scalar(%in: !blk.ptr<f64>) {
  %x = blk.load %in : !blk.ptr<f64>
  %t = math.erf %x : f64
  blk.store %in, %t : !blk.ptr<f64>
  return
}

// -----

// pow: the double-double log (a division for s and one for its error),
// then exp, then C's special cases (trunc tests for integral exponents).
// CHECK-LABEL: llvm.func @pow_f64_block
// CHECK:         llvm.fdiv %{{.*}} : f64
// CHECK:         llvm.fdiv %{{.*}} : f64
// CHECK:         llvm.intr.roundeven(%{{.*}}) : (f64) -> f64
// CHECK:         llvm.intr.trunc(%{{.*}}) : (f64) -> f64
// CHECK:         llvm.store
func.func @pow_f64_block(%in: !blk.ptr<f64>) {
  %r = blk.make_range 0 to 64 : tensor<64xi32>
  %b = blk.splat %in : !blk.ptr<f64> -> tensor<64x!blk.ptr<f64>>
  %p = blk.addptr %b, %r : tensor<64x!blk.ptr<f64>>, tensor<64xi32>
  %x = blk.load %p : tensor<64x!blk.ptr<f64>>
  %y = math.powf %x, %x : tensor<64xf64>
  blk.store %p, %y : tensor<64x!blk.ptr<f64>>
  return
}
