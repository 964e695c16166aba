// RUN: blockjit-opt %s --split-input-file --verify-diagnostics

func.func @axis_past_end(%x: tensor<4xf32>) {
  // expected-error @+1 {{'blk.expand_dims' op axis 2 out of range for a rank-1 source (expected 0..1)}}
  %0 = blk.expand_dims %x axis = 2 : tensor<4xf32> -> tensor<4x1xf32>
  return
}

// -----

func.func @axis_past_end_2d(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{axis 5 out of range for a rank-2 source (expected 0..2)}}
  %0 = blk.expand_dims %x axis = 5 : tensor<4x8xf32> -> tensor<4x8x1xf32>
  return
}

// -----

// A negative axis is rejected. (The number in the message is wrong today,
// see bug-expand_dims-negative-axis.mlir, so only the rest of the message is checked.)
func.func @axis_negative(%x: tensor<4xf32>) {
  // expected-error @+1 {{out of range for a rank-1 source (expected 0..1)}}
  %0 = blk.expand_dims %x axis = -1 : tensor<4xf32> -> tensor<1x4xf32>
  return
}

// -----

func.func @unit_dim_in_wrong_place(%x: tensor<4xf32>) {
  // expected-error @+1 {{'blk.expand_dims' op result type must be 'tensor<1x4xf32>', got 'tensor<4x1xf32>'}}
  %0 = blk.expand_dims %x axis = 0 : tensor<4xf32> -> tensor<4x1xf32>
  return
}

// -----

func.func @element_type_changes(%x: tensor<4xf32>) {
  // expected-error @+1 {{result type must be 'tensor<4x1xf32>', got 'tensor<4x1xf16>'}}
  %0 = blk.expand_dims %x axis = 1 : tensor<4xf32> -> tensor<4x1xf16>
  return
}

// -----

func.func @rank_unchanged(%x: tensor<4x8xi32>) {
  // expected-error @+1 {{result type must be 'tensor<4x1x8xi32>', got 'tensor<4x8xi32>'}}
  %0 = blk.expand_dims %x axis = 1 : tensor<4x8xi32> -> tensor<4x8xi32>
  return
}

// -----

// ODS: expand_dims works on ranked tensors only.
func.func @scalar_source(%x: f32) {
  // expected-error @+1 {{'blk.expand_dims' op operand #0 must be statically shaped ranked tensor of any type values, but got 'f32'}}
  %0 = "blk.expand_dims"(%x) <{axis = 0 : i32}> : (f32) -> tensor<1xf32>
  return
}
