// RUN: blockjit-opt %s --split-input-file --convert-blk-to-loops \
// RUN:   --convert-blk-to-llvm-cpu | FileCheck %s

// f64 functions on the host (compiler/MathLowering.h): sin, cos, tanh and
// pow stay LLVM intrinsics (libm calls, within 1 ulp; f64 pow is not
// expanded into exp2(y log2|x|), which would lose |y log2 x| ulp), while
// erf, which LLVM has no intrinsic for (it failed to legalize), takes the
// NVPTX expansion.

// CHECK-LABEL: llvm.func internal @sin_tanh_pow_f64
// CHECK:         llvm.intr.sin(%{{.*}}) : (f64) -> f64
// CHECK:         llvm.intr.tanh(%{{.*}}) : (f64) -> f64
// CHECK:         llvm.intr.pow(%{{.*}}, %{{.*}}) : (f64, f64) -> f64
// CHECK-NOT:     llvm.intr.exp2
// CHECK:         llvm.return
func.func @sin_tanh_pow_f64(%in: !blk.ptr<f64>, %out: !blk.ptr<f64>) {
  %x = blk.load %in : !blk.ptr<f64>
  %s = math.sin %x : f64
  %t = math.tanh %s : f64
  %p = math.powf %t, %x : f64
  blk.store %out, %p : !blk.ptr<f64>
  return
}

// -----

// CHECK-LABEL: llvm.func internal @erf_f64_block
// CHECK-NOT:     math.erf
// CHECK-NOT:     @erf
// CHECK:         llvm.intr.fma
// CHECK:         llvm.intr.roundeven(%{{.*}}) : (f64) -> f64
// CHECK:         llvm.intr.copysign
// CHECK:         llvm.return
func.func @erf_f64_block(%in: !blk.ptr<f64>, %out: !blk.ptr<f64>) {
  %r = blk.make_range 0 to 64 : tensor<64xi32>
  %b = blk.splat %in : !blk.ptr<f64> -> tensor<64x!blk.ptr<f64>>
  %p = blk.addptr %b, %r : tensor<64x!blk.ptr<f64>>, tensor<64xi32>
  %x = blk.load %p : tensor<64x!blk.ptr<f64>>
  %e = math.erf %x : tensor<64xf64>
  %o = blk.splat %out : !blk.ptr<f64> -> tensor<64x!blk.ptr<f64>>
  %q = blk.addptr %o, %r : tensor<64x!blk.ptr<f64>>, tensor<64xi32>
  blk.store %q, %e : tensor<64x!blk.ptr<f64>>
  return
}
