// RUN: blockjit-fuzz-ir --backend gpu --verbose %s 2>&1 | FileCheck %s
//
// Found by blockjit-fuzz-ir (math op-name swaps). Fixed (compiler/MathLowering.cpp): math.tanh passes every MLIR stage of the GPU
// pipeline and reaches NVPTX instruction selection as llvm.tanh.f32:
// "LLVM ERROR: Cannot select: f32 = ftanh", an abort (SIGABRT) inside
// compileModule (emitPTX). The DSL has no tanh, but blk IR accepts any math
// op. Expected: either it compiles (tanh.approx.f32 on sm_75+) or the GPU
// lowering rejects it with a diagnostic; never an abort.

// CHECK: : compiled{{$}}
func.func @tanh(%in: !blk.ptr<f32>) {
  %r = blk.make_range 0 to 128 : tensor<128xi32>
  %b = blk.splat %in : !blk.ptr<f32> -> tensor<128x!blk.ptr<f32>>
  %p = blk.addptr %b, %r : tensor<128x!blk.ptr<f32>>, tensor<128xi32>
  %x = blk.load %p : tensor<128x!blk.ptr<f32>>
  %t = math.tanh %x : tensor<128xf32>
  blk.store %p, %t : tensor<128x!blk.ptr<f32>>
  return
}
