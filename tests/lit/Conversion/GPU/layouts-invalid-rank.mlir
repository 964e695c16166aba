// RUN: blockjit-opt %s --split-input-file --verify-diagnostics \
// RUN:   --blk-assign-layouts="num-warps=4"

// The GPU backend distributes 1-D blocks only: every op that touches a
// block of another rank is reported, and the pass fails.

func.func @two_d(%in: !blk.ptr<f32>) {
  %r = blk.make_range 0 to 32 : tensor<32xi32>
  // expected-error @+1 {{'blk.expand_dims' op uses the rank-2 block 'tensor<32x1xi32>'; the GPU backend supports 1-D blocks only for now (the CPU backend runs any rank)}}
  %r2 = blk.expand_dims %r axis = 1 : tensor<32xi32> -> tensor<32x1xi32>
  // expected-error @+1 {{'blk.broadcast' op uses the rank-2 block 'tensor<32x1xi32>'; the GPU backend supports 1-D blocks only}}
  %b = blk.broadcast %r2 : tensor<32x1xi32> -> tensor<32x64xi32>
  return
}

// -----

// A 2-D tile built from the start (a 2-D constant) is reported too.
func.func @two_d_constant(%out: !blk.ptr<f32>) {
  // expected-error @+1 {{'arith.constant' op uses the rank-2 block 'tensor<4x8xf32>'; the GPU backend supports 1-D blocks only}}
  %c = arith.constant dense<1.0> : tensor<4x8xf32>
  // expected-error @+1 {{'blk.reduce' op uses the rank-2 block 'tensor<4x8xf32>'; the GPU backend supports 1-D blocks only}}
  %s = blk.reduce sum %c axis = 0 : tensor<4x8xf32> -> tensor<8xf32>
  return
}
