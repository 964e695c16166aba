// RUN: blockjit-opt %s --blockjit-cpu-pipeline | mlir-translate --mlir-to-llvmir | opt -O3 -S | FileCheck %s
//
// Found by blockjit-fuzz-dsl (seed 3, index 872:
// 10.0 / exp(log(full({BLOCK}, -1.0, DType::F32))) stored nothing at all).
// Fixed (compiler/MathLowering.cpp): the CPU backend expands
// math.exp with MLIR's polynomial approximation, which clamps
// k = floor(x * log2(e) + 0.5) with `uge`/`ule` selects that let a NaN
// through and then builds 2^k with `fptosi k`: for a NaN x that is poison in
// LLVM IR, and so is exp(x). At run time x86 happens to give NaN, but once
// LLVM can see the NaN (here log(-1), which MLIR does not fold), -O3 deletes
// the store of the poison value, and the output keeps its old contents.
// Expected: exp(NaN) is NaN and the store stays (NaN-safe clamping, e.g. a
// select on `x != x`, or arith.maximumf/minimumf, which propagate NaN
// without fptosi of it).

// CHECK-LABEL: define void @exp_of_nan_blockjit_entry
// CHECK: store float
func.func @exp_of_nan(%out: !blk.ptr<f32>) {
  %minus_one = arith.constant -1.0 : f32
  %nan = math.log %minus_one : f32
  %e = math.exp %nan : f32
  blk.store %out, %e : !blk.ptr<f32>
  return
}
