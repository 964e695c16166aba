// RUN: blockjit-opt %s --verify-diagnostics --blk-assign-layouts="num-warps=3"
// RUN: not blockjit-opt %s --blk-assign-layouts="num-warps=0" 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not blockjit-opt %s --blk-assign-layouts="num-warps=64" 2>&1 | FileCheck %s --check-prefix=W64
// RUN: not blockjit-opt %s --blk-assign-layouts="num-warps=-4" 2>&1 | FileCheck %s --check-prefix=NEG

// num-warps must be a power of two in 1..32 (32 warps = 1024 threads, the
// CUDA limit per block); anything else is reported on the module, with the
// value given, and the pass fails.

// ZERO: error: num_warps must be a power of two in 1..32, got 0{{$}}
// W64:  error: num_warps must be a power of two in 1..32, got 64{{$}}
// NEG:  error: num_warps must be a power of two in 1..32, got -4{{$}}

// expected-error @+1 {{num_warps must be a power of two in 1..32, got 3}}
module {
  func.func @k(%out: !blk.ptr<f32>) {
    %r = blk.make_range 0 to 256 : tensor<256xi32>
    %v = arith.sitofp %r : tensor<256xi32> to tensor<256xf32>
    %b = blk.splat %out : !blk.ptr<f32> -> tensor<256x!blk.ptr<f32>>
    %p = blk.addptr %b, %r : tensor<256x!blk.ptr<f32>>, tensor<256xi32>
    blk.store %p, %v : tensor<256x!blk.ptr<f32>>
    return
  }
}
