// RUN: blockjit-opt %s --split-input-file --verify-diagnostics

func.func @element_type_mismatch(%x: tensor<1xf32>) {
  // expected-error @+1 {{'blk.broadcast' op result element type 'f16' must match the source's 'f32'}}
  %0 = blk.broadcast %x : tensor<1xf32> -> tensor<4xf16>
  return
}

// -----

func.func @rank_grows(%x: tensor<4xf32>) {
  // expected-error @+1 {{'blk.broadcast' op broadcast keeps the rank: source has rank 1, result has rank 2 (insert dimensions with blk.expand_dims first)}}
  %0 = blk.broadcast %x : tensor<4xf32> -> tensor<4x4xf32>
  return
}

// -----

func.func @rank_shrinks(%x: tensor<1x4xf32>) {
  // expected-error @+1 {{broadcast keeps the rank: source has rank 2, result has rank 1}}
  %0 = blk.broadcast %x : tensor<1x4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @non_unit_dim(%x: tensor<2x1xf32>) {
  // expected-error @+1 {{'blk.broadcast' op dimension 0 of size 2 cannot be broadcast to 4 (only size-1 dimensions stretch)}}
  %0 = blk.broadcast %x : tensor<2x1xf32> -> tensor<4x4xf32>
  return
}

// -----

func.func @shrinking_dim(%x: tensor<4x8xi32>) {
  // expected-error @+1 {{dimension 1 of size 8 cannot be broadcast to 4 (only size-1 dimensions stretch)}}
  %0 = blk.broadcast %x : tensor<4x8xi32> -> tensor<4x4xi32>
  return
}

// -----

func.func @ptr_pointee_mismatch(%x: tensor<1x!blk.ptr<f32>>) {
  // expected-error @+1 {{result element type '!blk.ptr<i32>' must match the source's '!blk.ptr<f32>'}}
  %0 = blk.broadcast %x : tensor<1x!blk.ptr<f32>> -> tensor<8x!blk.ptr<i32>>
  return
}

// -----

// ODS: broadcast works on ranked tensors only.
func.func @scalar_source(%x: f32) {
  // expected-error @+1 {{'blk.broadcast' op operand #0 must be statically shaped ranked tensor of any type values, but got 'f32'}}
  %0 = "blk.broadcast"(%x) : (f32) -> tensor<4xf32>
  return
}
