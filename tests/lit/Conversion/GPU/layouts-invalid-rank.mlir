// RUN: blockjit-opt %s --split-input-file --verify-diagnostics \
// RUN:   --blk-assign-layouts="num-warps=4"

// The GPU backend distributes 1-D and 2-D blocks of static power-of-two
// sizes: every op that touches a block of a higher rank, or of another
// shape, is reported, and the pass fails.

func.func @three_d(%in: !blk.ptr<f32>) {
  %r = blk.make_range 0 to 32 : tensor<32xi32>
  %r2 = blk.expand_dims %r axis = 1 : tensor<32xi32> -> tensor<32x1xi32>
  // expected-error @+1 {{'blk.expand_dims' op uses the rank-3 block 'tensor<32x1x1xi32>'; the GPU backend supports 1-D and 2-D blocks (the CPU backend runs any rank)}}
  %r3 = blk.expand_dims %r2 axis = 2 : tensor<32x1xi32> -> tensor<32x1x1xi32>
  return
}

// -----

// A 3-D tile built from the start (a constant) is reported too.
func.func @three_d_constant(%out: !blk.ptr<f32>) {
  // expected-error @+1 {{'arith.constant' op uses the rank-3 block 'tensor<2x4x8xf32>'; the GPU backend supports 1-D and 2-D blocks}}
  %c = arith.constant dense<1.0> : tensor<2x4x8xf32>
  // expected-error @+1 {{'blk.reduce' op uses the rank-3 block 'tensor<2x4x8xf32>'; the GPU backend supports 1-D and 2-D blocks}}
  %s = blk.reduce sum %c axis = 0 : tensor<2x4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

// Layouts spread blocks by powers of two: a block of 48 elements is
// reported.
func.func @not_power_of_two(%out: !blk.ptr<f32>) {
  // expected-error @+1 {{'arith.constant' op uses the block 'tensor<48xf32>'; the GPU backend distributes blocks of static power-of-two dimensions}}
  %c = arith.constant dense<1.0> : tensor<48xf32>
  return
}

// -----

// So is a block of dynamic shape.
func.func @dynamic(%out: !blk.ptr<f32>, %n: index) {
  // expected-error @+1 {{'tensor.empty' op uses the block 'tensor<?xf32>'; the GPU backend distributes blocks of static power-of-two dimensions}}
  %e = tensor.empty(%n) : tensor<?xf32>
  return
}
