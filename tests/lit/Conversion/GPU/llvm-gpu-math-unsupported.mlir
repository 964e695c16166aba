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

// -----

// exp of an f64 block becomes exp2, and ex2.approx has no f64 form: an error
// rather than "Cannot select: NVPTXISD::CALL" ending the process in emitPTX
// (found by tests/differential, case ew_exp_f64_f64).
func.func @exp_f64_block(%in: !blk.ptr<f64>) {
  %r = blk.make_range 0 to 128 : tensor<128xi32>
  %b = blk.splat %in : !blk.ptr<f64> -> tensor<128x!blk.ptr<f64>>
  %p = blk.addptr %b, %r : tensor<128x!blk.ptr<f64>>, tensor<128xi32>
  %x = blk.load %p : tensor<128x!blk.ptr<f64>>
  // expected-error @+1 {{'math.exp2' op has no lowering for the CUDA target}}
  %e = math.exp %x : tensor<128xf64>
  blk.store %p, %e : tensor<128x!blk.ptr<f64>>
  return
}
