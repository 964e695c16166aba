// RUN: blockjit-opt %s --split-input-file --verify-diagnostics

func.func @axis_out_of_range_1d(%x: tensor<4xf32>) {
  // expected-error @+1 {{'blk.reduce' op axis 1 out of range for a rank-1 operand (expected 0..0)}}
  %0 = blk.reduce max %x axis = 1 : tensor<4xf32> -> f32
  return
}

// -----

func.func @axis_out_of_range_2d(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{axis 2 out of range for a rank-2 operand (expected 0..1)}}
  %0 = blk.reduce sum %x axis = 2 : tensor<4x8xf32> -> tensor<4xf32>
  return
}

// -----

// A negative axis is rejected. (The number in the message is wrong today,
// see bug-reduce-negative-axis.mlir, so only the rest of the message is checked.)
func.func @axis_negative(%x: tensor<4xf32>) {
  // expected-error @+1 {{out of range for a rank-1 operand (expected 0..0)}}
  %0 = blk.reduce min %x axis = -1 : tensor<4xf32> -> f32
  return
}

// -----

func.func @wrong_result_2d(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'blk.reduce' op result type 'tensor<8xf32>' must be 'tensor<4xf32>' (the operand reduced along axis 1)}}
  %0 = blk.reduce max %x axis = 1 : tensor<4x8xf32> -> tensor<8xf32>
  return
}

// -----

func.func @rank0_result_for_1d(%x: tensor<4xf32>) {
  // expected-error @+1 {{result type 'tensor<f32>' must be 'f32' (the operand reduced along axis 0)}}
  %0 = blk.reduce max %x axis = 0 : tensor<4xf32> -> tensor<f32>
  return
}

// -----

func.func @element_type_changes(%x: tensor<64xi32>) {
  // expected-error @+1 {{result type 'i64' must be 'i32' (the operand reduced along axis 0)}}
  %0 = blk.reduce sum %x axis = 0 : tensor<64xi32> -> i64
  return
}

// -----

func.func @pointer_block(%x: tensor<4x!blk.ptr<f32>>) {
  // expected-error @+1 {{'blk.reduce' op reduces integer or float blocks, got 'tensor<4x!blk.ptr<f32>>'}}
  %0 = blk.reduce max %x axis = 0 : tensor<4x!blk.ptr<f32>> -> !blk.ptr<f32>
  return
}

// -----

func.func @index_block(%x: tensor<4xindex>) {
  // expected-error @+1 {{reduces integer or float blocks, got 'tensor<4xindex>'}}
  %0 = blk.reduce sum %x axis = 0 : tensor<4xindex> -> index
  return
}

// -----

func.func @unknown_kind(%x: tensor<4xf32>) {
  // expected-error @+2 {{expected ::blockjit::blk::ReduceKind to be one of: max, min, sum}}
  // expected-error @+1 {{failed to parse Blk_ReduceKindAttr parameter 'value'}}
  %0 = blk.reduce prod %x axis = 0 : tensor<4xf32> -> f32
  return
}

// -----

// ODS: the operand is a ranked tensor.
func.func @scalar_operand(%x: f32) {
  // expected-error @+1 {{'blk.reduce' op operand #0 must be statically shaped ranked tensor of any type values, but got 'f32'}}
  %0 = "blk.reduce"(%x) <{axis = 0 : i32, kind = #blk<reduce_kind max>}> : (f32) -> f32
  return
}

// -----

func.func @missing_kind(%x: tensor<4xf32>) {
  // expected-error @+1 {{requires attribute 'kind'}}
  %0 = "blk.reduce"(%x) <{axis = 0 : i32}> : (tensor<4xf32>) -> f32
  return
}

// -----

// The kind must be a #blk<reduce_kind ...> attribute.
func.func @kind_not_enum(%x: tensor<4xf32>) {
  // expected-error @+1 {{Invalid attribute `kind` in property conversion: 2 : i32}}
  %0 = "blk.reduce"(%x) <{axis = 0 : i32, kind = 2 : i32}> : (tensor<4xf32>) -> f32
  return
}

// -----

func.func @axis_wrong_width(%x: tensor<4xf32>) {
  // expected-error @+1 {{'blk.reduce' op attribute 'axis' failed to satisfy constraint: 32-bit signless integer attribute}}
  %0 = "blk.reduce"(%x) <{axis = 0 : i64, kind = #blk<reduce_kind max>}> : (tensor<4xf32>) -> f32
  return
}
