// RUN: blockjit-fuzz-ir --backend gpu --verbose %s 2>&1 | FileCheck %s
//
// Found by blockjit-fuzz-ir (the seed Conversion/CPU/llvm-cpu-math.mlir run
// through the GPU backend). Fixed (compiler/MathLowering.cpp):
// BlkToNVVM rewrites math.exp as exp2(x * log2(e)) only for blocks; a scalar
// math.exp (what the DSL's exp() of a scalar traces to) reaches the NVPTX
// backend as llvm.exp.f32, which has no lowering there: "error: no libcall
// available for fexp" from LLVMContext::diagnose, which exit(1)s the whole
// process from inside compileModule (emitPTX). Expected: it compiles, like
// the block form.

// CHECK: gpu: compiled
// CHECK: : compiled
func.func @exp_scalar(%in: !blk.ptr<f32>, %out: !blk.ptr<f32>) {
  %x = blk.load %in : !blk.ptr<f32>
  %e = math.exp %x : f32
  blk.store %out, %e : !blk.ptr<f32>
  return
}
