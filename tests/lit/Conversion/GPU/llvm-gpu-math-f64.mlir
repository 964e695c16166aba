// RUN: blockjit-opt %s --blockjit-gpu-pipeline --split-input-file | FileCheck %s

// f64 exp, exp2, log and log2 have their own expansions on the GPU
// (compiler/MathLowering.cpp): ex2.approx and MLIR's approximations are f32
// only, and f64 exp of a block used to be an error here (found by
// tests/differential, case ew_exp_f64_f64). No math intrinsic but fma,
// roundeven and fabs is left, and nothing is computed in f32.

// CHECK-LABEL: llvm.func @exp_log_f64_block
// CHECK-NOT:     llvm.intr.exp
// CHECK-NOT:     llvm.intr.log
// CHECK-NOT:     : f32
// CHECK:         llvm.intr.roundeven(%{{.*}}) : (f64) -> f64
// CHECK:         llvm.intr.fma
// CHECK:         llvm.shl %{{.*}} : i64
// CHECK:         llvm.bitcast %{{.*}} : i64 to f64
// CHECK:         llvm.fdiv %{{.*}} : f64
// CHECK-NOT:     llvm.intr.exp
// CHECK-NOT:     llvm.intr.log
// CHECK:         llvm.store
func.func @exp_log_f64_block(%in: !blk.ptr<f64>) {
  %r = blk.make_range 0 to 128 : tensor<128xi32>
  %b = blk.splat %in : !blk.ptr<f64> -> tensor<128x!blk.ptr<f64>>
  %p = blk.addptr %b, %r : tensor<128x!blk.ptr<f64>>, tensor<128xi32>
  %x = blk.load %p : tensor<128x!blk.ptr<f64>>
  %e = math.exp %x : tensor<128xf64>
  %l = math.log %e : tensor<128xf64>
  blk.store %p, %l : tensor<128x!blk.ptr<f64>>
  return
}

// -----

// Scalars go through the same expansions, exp2 and log2 too.
// CHECK-LABEL: llvm.func @exp2_log2_f64_scalar
// CHECK-NOT:     llvm.intr.exp2
// CHECK-NOT:     llvm.intr.log2
// CHECK:         llvm.store
func.func @exp2_log2_f64_scalar(%in: !blk.ptr<f64>) {
  %x = blk.load %in : !blk.ptr<f64>
  %e = math.exp2 %x : f64
  %l = math.log2 %e : f64
  blk.store %in, %l : !blk.ptr<f64>
  return
}
