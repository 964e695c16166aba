// RUN: blockjit-opt %s --split-input-file --blockjit-gpu-pipeline | FileCheck %s \
// RUN:   '--implicit-check-not=llvm.intr.exp(' --implicit-check-not=llvm.intr.log \
// RUN:   --implicit-check-not=llvm.intr.tanh --implicit-check-not=llvm.intr.pow \
// RUN:   --implicit-check-not=llvm.intr.exp2

// Math on scalars and on block elements goes through one lowering
// (compiler/MathLowering.cpp): exp is exp2(x * log2 e), the ex2.approx.ftz
// instruction (results below 2^-126 flush to 0, as LANGUAGE.md allows; the
// plain form keeps them at three more instructions per exp); what NVPTX cannot select (log2, tanh, ...) becomes MLIR's
// polynomial approximations, NaN-safe; pow is expanded through exp and log.
// Scalar exp and log once ended the process ("no libcall available for
// fexp"), tanh and powf aborted it.

// CHECK-LABEL: llvm.func @scalar_math
// CHECK:         %[[S:.*]] = llvm.fmul %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:    llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"(%[[S]]) : (f32) -> f32
// CHECK:         llvm.intr.fma
// CHECK:         llvm.fcmp "uno"
// CHECK:         llvm.store
func.func @scalar_math(%in: !blk.ptr<f32>, %out: !blk.ptr<f32>) {
  %x = blk.load %in : !blk.ptr<f32>
  %e = math.exp %x : f32
  %l = math.log %e : f32
  %t = math.tanh %l : f32
  %p = math.powf %t, %x : f32
  blk.store %out, %p : !blk.ptr<f32>
  return
}

// -----

// The block exp of softmax stays exp2(x * log2 e), the ex2.approx
// instruction (one element per thread here).
// CHECK-LABEL: llvm.func @block_exp
// CHECK:       llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
func.func @block_exp(%in: !blk.ptr<f32>) {
  %r = blk.make_range 0 to 128 : tensor<128xi32>
  %b = blk.splat %in : !blk.ptr<f32> -> tensor<128x!blk.ptr<f32>>
  %p = blk.addptr %b, %r : tensor<128x!blk.ptr<f32>>, tensor<128xi32>
  %x = blk.load %p : tensor<128x!blk.ptr<f32>>
  %e = math.exp %x : tensor<128xf32>
  blk.store %p, %e : tensor<128x!blk.ptr<f32>>
  return
}

