// RUN: blockjit-fuzz-ir --backend gpu --verbose %s 2>&1 | FileCheck %s
//
// Found by blockjit-fuzz-ir (the seed Conversion/GPU/nvvm-math.mlir run
// through the whole GPU path). Fixed (compiler/MathLowering.cpp):
// BlkToNVVM rewrites math.log as log2(x) * ln(2), and math.log2 reaches the
// NVPTX backend as llvm.log2.f32, which it cannot select: "error: no libcall
// available for flog2" from LLVMContext::diagnose, which exit(1)s the process
// inside compileModule (emitPTX). Every DSL kernel calling log() on a block
// kills the JIT on the GPU. A scalar math.log fails the same way ("flog").
// Expected: it compiles (lg2.approx.f32, as exp2 uses ex2.approx).

// CHECK: gpu: compiled
// CHECK: : compiled
func.func @log(%in: !blk.ptr<f32>) {
  %r = blk.make_range 0 to 128 : tensor<128xi32>
  %b = blk.splat %in : !blk.ptr<f32> -> tensor<128x!blk.ptr<f32>>
  %p = blk.addptr %b, %r : tensor<128x!blk.ptr<f32>>, tensor<128xi32>
  %x = blk.load %p : tensor<128x!blk.ptr<f32>>
  %l = math.log %x : tensor<128xf32>
  blk.store %p, %l : tensor<128x!blk.ptr<f32>>
  return
}
