// RUN: blockjit-opt %s --split-input-file --verify-diagnostics

// Verifier errors of blk.load. The custom form always infers consistent types,
// so bad types are written in the generic form.

func.func @result_type_mismatch(%p: tensor<4x!blk.ptr<f32>>) {
  // expected-error @+1 {{'blk.load' op result type 'tensor<4xf16>' must be 'tensor<4xf32>' (the pointee type with the pointers' shape)}}
  %0 = "blk.load"(%p) <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (tensor<4x!blk.ptr<f32>>) -> tensor<4xf16>
  return
}

// -----

func.func @result_shape_mismatch(%p: tensor<4x!blk.ptr<i32>>) {
  // expected-error @+1 {{result type 'i32' must be 'tensor<4xi32>' (the pointee type with the pointers' shape)}}
  %0 = "blk.load"(%p) <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (tensor<4x!blk.ptr<i32>>) -> i32
  return
}

// -----

func.func @scalar_result_mismatch(%p: !blk.ptr<bf16>) {
  // expected-error @+1 {{result type 'f16' must be 'bf16'}}
  %0 = "blk.load"(%p) <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (!blk.ptr<bf16>) -> f16
  return
}

// -----

func.func @mask_shape_mismatch(%p: tensor<4x!blk.ptr<f32>>, %m: tensor<8xi1>) {
  // expected-error @+1 {{'blk.load' op mask type 'tensor<8xi1>' must be 'tensor<4xi1>' (i1 with the pointers' shape)}}
  %0 = "blk.load"(%p, %m) <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (tensor<4x!blk.ptr<f32>>, tensor<8xi1>) -> tensor<4xf32>
  return
}

// -----

func.func @tensor_mask_scalar_ptr(%p: !blk.ptr<f32>, %m: tensor<4xi1>) {
  // expected-error @+1 {{mask type 'tensor<4xi1>' must be 'i1' (i1 with the pointers' shape)}}
  %0 = "blk.load"(%p, %m) <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (!blk.ptr<f32>, tensor<4xi1>) -> f32
  return
}

// -----

func.func @other_without_mask(%p: tensor<4x!blk.ptr<f32>>, %o: tensor<4xf32>) {
  // expected-error @+1 {{'blk.load' op 'other' is only meaningful with a mask}}
  %0 = "blk.load"(%p, %o) <{operandSegmentSizes = array<i32: 1, 0, 1>}> : (tensor<4x!blk.ptr<f32>>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @other_scalar_for_block(%p: tensor<4x!blk.ptr<f32>>, %m: tensor<4xi1>, %o: f32) {
  // expected-error @+1 {{'blk.load' op 'other' type 'f32' must be the loaded type 'tensor<4xf32>'}}
  %0 = "blk.load"(%p, %m, %o) <{operandSegmentSizes = array<i32: 1, 1, 1>}> : (tensor<4x!blk.ptr<f32>>, tensor<4xi1>, f32) -> tensor<4xf32>
  return
}

// -----

func.func @other_element_mismatch(%p: tensor<4x!blk.ptr<f16>>, %m: tensor<4xi1>, %o: tensor<4xf32>) {
  // expected-error @+1 {{'other' type 'tensor<4xf32>' must be the loaded type 'tensor<4xf16>'}}
  %0 = "blk.load"(%p, %m, %o) <{operandSegmentSizes = array<i32: 1, 1, 1>}> : (tensor<4x!blk.ptr<f16>>, tensor<4xi1>, tensor<4xf32>) -> tensor<4xf16>
  return
}

// -----

// ODS: the mask is i1 or a tensor of i1.
func.func @mask_not_i1(%p: tensor<4x!blk.ptr<f32>>, %m: tensor<4xi32>) {
  // expected-error @+1 {{'blk.load' op operand #1 must be i1 or tensor of i1, but got 'tensor<4xi32>'}}
  %0 = "blk.load"(%p, %m) <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (tensor<4x!blk.ptr<f32>>, tensor<4xi32>) -> tensor<4xf32>
  return
}

// -----

func.func @scalar_mask_not_i1(%p: !blk.ptr<f32>, %m: i8) {
  // expected-error @+1 {{operand #1 must be i1 or tensor of i1, but got 'i8'}}
  %0 = "blk.load"(%p, %m) <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (!blk.ptr<f32>, i8) -> f32
  return
}

// -----

// ODS: the pointers must be pointers.
func.func @not_a_pointer(%p: f32) {
  // expected-error @+1 {{'blk.load' op operand #0 must be pointer or tensor of pointers, but got 'f32'}}
  %0 = "blk.load"(%p) <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (f32) -> f32
  return
}

// -----

// ODS: operandSegmentSizes must describe the operands.
func.func @bad_segments(%p: !blk.ptr<f32>, %m: i1) {
  // expected-error @+1 {{'blk.load' op operand count (2) does not match with the total size (1) specified in attribute 'operandSegmentSizes'}}
  %0 = "blk.load"(%p, %m) <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (!blk.ptr<f32>, i1) -> f32
  return
}

// -----

// ODS: the mask segment holds at most one operand.
func.func @two_masks(%p: !blk.ptr<f32>, %m: i1) {
  // expected-error @+1 {{'blk.load' op operand group starting at #1 requires 0 or 1 element, but found 2}}
  %0 = "blk.load"(%p, %m, %m) <{operandSegmentSizes = array<i32: 1, 2, 0>}> : (!blk.ptr<f32>, i1, i1) -> f32
  return
}
