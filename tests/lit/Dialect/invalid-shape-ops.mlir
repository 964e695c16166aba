// RUN: blockjit-opt %s --split-input-file --verify-diagnostics

// Every verifier error of blk.reshape, blk.permute, blk.join and blk.split.

func.func @reshape_count(%x: tensor<32xf32>) {
  // expected-error @+1 {{'blk.reshape' op cannot reshape [32] (32 elements) to [4, 4] (16 elements): the element count must stay}}
  %0 = blk.reshape %x : tensor<32xf32> -> tensor<4x4xf32>
  return
}

// -----

func.func @reshape_element_type(%x: tensor<32xf32>) {
  // expected-error @+1 {{'blk.reshape' op result element type 'f16' must match the source's 'f32'}}
  %0 = blk.reshape %x : tensor<32xf32> -> tensor<4x8xf16>
  return
}

// -----

func.func @permute_order_size(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'blk.permute' op order has 1 entries; the source has rank 2}}
  %0 = blk.permute %x order = [0] : tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @permute_not_a_permutation(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'blk.permute' op order [1, 1] must be a permutation of 0..1}}
  %0 = blk.permute %x order = [1, 1] : tensor<4x8xf32> -> tensor<8x8xf32>
  return
}

// -----

func.func @permute_out_of_range(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'blk.permute' op order [0, 2] must be a permutation of 0..1}}
  %0 = blk.permute %x order = [0, 2] : tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @permute_shape(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'blk.permute' op result shape [4, 8] must be [8, 4] (dimension i is the source's dimension order[i])}}
  %0 = blk.permute %x order = [1, 0] : tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @permute_element_type(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'blk.permute' op result element type 'i32' must match the source's 'f32'}}
  %0 = blk.permute %x order = [1, 0] : tensor<4x8xf32> -> tensor<8x4xi32>
  return
}

// -----

func.func @join_operand_types(%a: tensor<16xf32>, %b: tensor<16xf16>) {
  // expected-error @+1 {{'blk.join' op failed to verify that all of {lhs, rhs} have same type}}
  %0 = "blk.join"(%a, %b) : (tensor<16xf32>, tensor<16xf16>) -> tensor<16x2xf32>
  return
}

// -----

func.func @join_shape(%a: tensor<16xf32>) {
  // expected-error @+1 {{'blk.join' op result shape [2, 16] must be [16, 2] (the operands' shape and a last dimension of 2)}}
  %0 = blk.join %a, %a : tensor<16xf32> -> tensor<2x16xf32>
  return
}

// -----

func.func @join_element_type(%a: tensor<16xf32>) {
  // expected-error @+1 {{'blk.join' op result element type 'f16' must match the source's 'f32'}}
  %0 = blk.join %a, %a : tensor<16xf32> -> tensor<16x2xf16>
  return
}

// -----

func.func @split_last_dim(%x: tensor<16x4xf32>) {
  // expected-error @+1 {{'blk.split' op splits a block of rank 2 or more whose last dimension is 2, got 'tensor<16x4xf32>'}}
  %0, %1 = blk.split %x : tensor<16x4xf32> -> tensor<16xf32>
  return
}

// -----

func.func @split_rank_1(%x: tensor<2xf32>) {
  // expected-error @+1 {{'blk.split' op splits a block of rank 2 or more whose last dimension is 2, got 'tensor<2xf32>'}}
  %0, %1 = "blk.split"(%x) : (tensor<2xf32>) -> (tensor<1xf32>, tensor<1xf32>)
  return
}

// -----

func.func @split_shape(%x: tensor<16x2xf32>) {
  // expected-error @+1 {{'blk.split' op result shape [8] must be [16] (the source without its last dimension)}}
  %0, %1 = blk.split %x : tensor<16x2xf32> -> tensor<8xf32>
  return
}

// -----

func.func @split_element_type(%x: tensor<16x2xf32>) {
  // expected-error @+1 {{'blk.split' op result element type 'i8' must match the source's 'f32'}}
  %0, %1 = blk.split %x : tensor<16x2xf32> -> tensor<16xi8>
  return
}

// -----

func.func @split_result_types(%x: tensor<16x2xf32>) {
  // expected-error @+1 {{'blk.split' op failed to verify that all of {lhs, rhs} have same type}}
  %0, %1 = "blk.split"(%x) : (tensor<16x2xf32>) -> (tensor<16xf32>, tensor<16xf16>)
  return
}
