// RUN: blockjit-fuzz-ir --backend gpu --verbose %s 2>&1 | FileCheck %s
//
// Found by blockjit-fuzz-ir (an op-name swap turned arith.mulf into
// math.powf). Fixed (compiler/MathLowering.cpp): math.powf passes
// every MLIR stage of the GPU pipeline and reaches NVPTX instruction
// selection as llvm.pow: "LLVM ERROR: Cannot select: f32 = fpow" (f16 too),
// an abort (SIGABRT) inside compileModule (emitPTX). Same family as
// gpu-tanh.mlir: math ops without an NVPTX lowering should be expanded
// (pow(x, y) = exp2(y * log2(x))) or rejected with a diagnostic.

// CHECK: : compiled{{$}}
func.func @powf(%in: !blk.ptr<f32>) {
  %r = blk.make_range 0 to 128 : tensor<128xi32>
  %b = blk.splat %in : !blk.ptr<f32> -> tensor<128x!blk.ptr<f32>>
  %p = blk.addptr %b, %r : tensor<128x!blk.ptr<f32>>, tensor<128xi32>
  %x = blk.load %p : tensor<128x!blk.ptr<f32>>
  %y = math.powf %x, %x : tensor<128xf32>
  blk.store %p, %y : tensor<128x!blk.ptr<f32>>
  return
}
