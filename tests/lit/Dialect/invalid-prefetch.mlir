// RUN: blockjit-opt %s --split-input-file --verify-diagnostics

// blk.prefetch takes a scalar pointer only: blocks of pointers are
// prefetched element by element by the CPU loops stage.

func.func @block_of_pointers(%p: tensor<4x!blk.ptr<f32>>) {
  // expected-error @+1 {{'blk.prefetch' op operand #0 must be}}
  "blk.prefetch"(%p) : (tensor<4x!blk.ptr<f32>>) -> ()
  return
}

// -----

func.func @not_a_pointer(%p: i64) {
  // expected-error @+1 {{'blk.prefetch' op operand #0 must be}}
  "blk.prefetch"(%p) : (i64) -> ()
  return
}
