// RUN: blockjit-opt %s --split-input-file --verify-diagnostics

func.func @sum_kind(%x: tensor<4xf32>) {
  // expected-error @+1 {{'blk.arg_reduce' op kind must be max or min, got sum}}
  %0 = blk.arg_reduce sum %x axis = 0 : tensor<4xf32> -> i32
  return
}

// -----

func.func @i1_block(%x: tensor<4xi1>) {
  // expected-error @+1 {{'blk.arg_reduce' op reduces integer (not i1) or float blocks, got 'tensor<4xi1>'}}
  %0 = blk.arg_reduce max %x axis = 0 : tensor<4xi1> -> i32
  return
}

// -----

func.func @pointer_block(%x: tensor<4x!blk.ptr<f32>>) {
  // expected-error @+1 {{'blk.arg_reduce' op reduces integer (not i1) or float blocks}}
  %0 = blk.arg_reduce min %x axis = 0 : tensor<4x!blk.ptr<f32>> -> i32
  return
}

// -----

func.func @axis_out_of_range(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'blk.arg_reduce' op axis 2 out of range for a rank-2 operand (expected 0..1)}}
  %0 = blk.arg_reduce max %x axis = 2 : tensor<4x8xf32> -> tensor<4xi32>
  return
}

// -----

func.func @value_typed_result(%x: tensor<4xf32>) {
  // expected-error @+1 {{'blk.arg_reduce' op result type 'f32' must be 'i32' (i32 indices along axis 0)}}
  %0 = blk.arg_reduce max %x axis = 0 : tensor<4xf32> -> f32
  return
}

// -----

func.func @wrong_shape(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'blk.arg_reduce' op result type 'tensor<8xi32>' must be 'tensor<4xi32>' (i32 indices along axis 1)}}
  %0 = blk.arg_reduce min %x axis = 1 : tensor<4x8xf32> -> tensor<8xi32>
  return
}
