// RUN: blockjit-opt %s --split-input-file --verify-diagnostics \
// RUN:   --blk-assign-layouts="num-warps=4"

// The GPU backend distributes blocks (of any rank) of static power-of-two
// sizes: every op that touches a block of another shape is reported, and
// the pass fails. (Rank 3 and more: layouts-3d.mlir.)

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
