// RUN: blockjit-opt %s --blockjit-gpu-pipeline --split-input-file --verify-diagnostics

// A math op the CUDA target has no lowering for is an error naming the op
// and the target, raised before LLVM (where it would abort the process).
func.func @isnan(%in: !blk.ptr<f32>, %out: !blk.ptr<i1>) {
  %x = blk.load %in : !blk.ptr<f32>
  // expected-error @+1 {{'math.isnan' op has no lowering for the CUDA target}}
  %b = math.isnan %x : f32
  blk.store %out, %b : !blk.ptr<i1>
  return
}

