// RUN: blockjit-opt %s --split-input-file --blk-verify-kernels --verify-diagnostics
// Both pipelines start with this pass: a kernel no backend can lower stops
// there with a message instead of crashing inside a lowering.
// RUN: not blockjit-opt %s --split-input-file --blockjit-gpu-pipeline 2>&1 | FileCheck %s --check-prefix=PIPE
// RUN: not blockjit-opt %s --split-input-file --blockjit-cpu-pipeline 2>&1 | FileCheck %s --check-prefix=PIPE

// A `none` parameter once crashed ConvertBlkToLLVMGPU (SIGSEGV).
// PIPE: parameter #0 has type 'none'
// expected-error @+1 {{'func.func' op parameter #0 has type 'none'; kernel parameters are integers (of at least 1 bit), floats or !blk.ptr pointers}}
func.func @none_param(%p: none) {
  return
}

// -----

// An i0 parameter ended the GPU compile in NVPTX's instruction selection
// ("LLVM ERROR: Empty parameter types are not supported"; found by
// blockjit-fuzz-ir).
// PIPE: parameter #1 has type 'i0'
// expected-error @+1 {{'func.func' op parameter #1 has type 'i0'; kernel parameters are integers (of at least 1 bit)}}
func.func @i0_param(%p: !blk.ptr<f16>, %zero_bits: i0, %n: i32) {
  return
}

// -----

// PIPE: parameter #1 has type 'tensor<*xf32>'
// expected-error @+1 {{'func.func' op parameter #1 has type 'tensor<*xf32>'; kernel parameters are}}
func.func @unranked_param(%n: i32, %t: tensor<*xf32>) {
  return
}

// -----

// PIPE: parameter #0 has type 'tensor<4xf32>'
// expected-error @+1 {{'func.func' op parameter #0 has type 'tensor<4xf32>'}}
func.func @block_param(%t: tensor<4xf32>) {
  return
}

// -----

// PIPE: returns values; a kernel returns nothing
// expected-error @+1 {{'func.func' op returns values; a kernel returns nothing (it writes its results through pointers)}}
func.func @returns(%n: i32) -> i32 {
  return %n : i32
}

// -----

// A 2^40-element constant once aborted the GPU lowering ("LLVM ERROR:
// SmallVector unable to grow").
// PIPE: is not a valid block: a block holds at most 16777216 (2^24) elements
func.func @huge_constant(%out: !blk.ptr<f32>) {
  // expected-error @+1 {{'arith.constant' op result type 'tensor<1099511627776xf32>' is not a valid block: a block holds at most 16777216 (2^24) elements}}
  %c = arith.constant dense<1.0> : tensor<1099511627776xf32>
  %s = blk.reduce sum %c axis = 0 : tensor<1099511627776xf32> -> f32
  blk.store %out, %s : !blk.ptr<f32>
  return
}

// -----

// PIPE: every block dimension is a power of two
func.func @odd_shape(%out: !blk.ptr<f32>) {
  // expected-error @+1 {{'arith.constant' op result type 'tensor<3xf32>' is not a valid block: every block dimension is a power of two}}
  %c = arith.constant dense<1.0> : tensor<3xf32>
  %s = blk.reduce sum %c axis = 0 : tensor<3xf32> -> f32
  blk.store %out, %s : !blk.ptr<f32>
  return
}

// -----

// PIPE: block elements are integers (of at least 1 bit), floats or !blk.ptr pointers
func.func @index_block(%out: !blk.ptr<i32>) {
  // expected-error @+1 {{'arith.constant' op result type 'tensor<4xindex>' is not a valid block: block elements are integers (of at least 1 bit), floats or !blk.ptr pointers}}
  %c = arith.constant dense<1> : tensor<4xindex>
  return
}

// -----

// The largest block allowed passes.
func.func @at_the_limit(%out: !blk.ptr<f32>) {
  %c = arith.constant dense<1.0> : tensor<4096x4096xf32>
  %s = blk.reduce sum %c axis = 0 : tensor<4096x4096xf32> -> tensor<4096xf32>
  return
}

// -----

// A constant loop step must be positive: scf.for is undefined otherwise
// (a step computed from an argument specialized as 0 folds to this).
// PIPE: steps by 0; a for_range step must be positive
func.func @zero_step(%n: i32) {
  %c0 = arith.constant 0 : i32
  // expected-error @+1 {{'scf.for' op steps by 0; a for_range step must be positive (an integer argument equal to 0 is compiled as the constant)}}
  scf.for %i = %c0 to %n step %c0 : i32 {
  }
  return
}
