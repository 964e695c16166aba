// RUN: blockjit-opt %s --split-input-file --verify-diagnostics

func.func @scalar_ptr_tensor_offset(%p: !blk.ptr<f32>, %o: tensor<4xi32>) {
  // expected-error @+1 {{'blk.addptr' op offset shape [4] must match the pointer shape [] (splat or broadcast one of them first)}}
  %0 = blk.addptr %p, %o : !blk.ptr<f32>, tensor<4xi32>
  return
}

// -----

func.func @tensor_ptr_scalar_offset(%p: tensor<4x!blk.ptr<f32>>, %o: i32) {
  // expected-error @+1 {{'blk.addptr' op offset shape [] must match the pointer shape [4] (splat or broadcast one of them first)}}
  %0 = blk.addptr %p, %o : tensor<4x!blk.ptr<f32>>, i32
  return
}

// -----

func.func @shape_mismatch(%p: tensor<4x!blk.ptr<f32>>, %o: tensor<8xi32>) {
  // expected-error @+1 {{offset shape [8] must match the pointer shape [4]}}
  %0 = blk.addptr %p, %o : tensor<4x!blk.ptr<f32>>, tensor<8xi32>
  return
}

// -----

func.func @rank_mismatch(%p: tensor<4x8x!blk.ptr<f16>>, %o: tensor<4x1xi32>) {
  // expected-error @+1 {{offset shape [4, 1] must match the pointer shape [4, 8]}}
  %0 = blk.addptr %p, %o : tensor<4x8x!blk.ptr<f16>>, tensor<4x1xi32>
  return
}

// -----

func.func @rank0_offset(%p: !blk.ptr<f16>, %o: tensor<i32>) {
  // expected-error @+1 {{offset shape [] must match the pointer shape [] (splat or broadcast one of them first)}}
  %0 = blk.addptr %p, %o : !blk.ptr<f16>, tensor<i32>
  return
}

// -----

// ODS: the offset is an integer or a tensor of integers.
func.func @float_offset(%p: !blk.ptr<f32>, %o: f32) {
  // expected-error @+1 {{'blk.addptr' op operand #1 must be integer or tensor of integers, but got 'f32'}}
  %0 = blk.addptr %p, %o : !blk.ptr<f32>, f32
  return
}

// -----

func.func @float_tensor_offset(%p: tensor<4x!blk.ptr<f32>>, %o: tensor<4xf32>) {
  // expected-error @+1 {{operand #1 must be integer or tensor of integers, but got 'tensor<4xf32>'}}
  %0 = blk.addptr %p, %o : tensor<4x!blk.ptr<f32>>, tensor<4xf32>
  return
}

// -----

func.func @index_offset(%p: !blk.ptr<f32>, %o: index) {
  // expected-error @+1 {{operand #1 must be integer or tensor of integers, but got 'index'}}
  %0 = blk.addptr %p, %o : !blk.ptr<f32>, index
  return
}

// -----

// ODS: the base must be a pointer or a tensor of pointers.
func.func @not_a_pointer(%p: i64, %o: i32) {
  // expected-error @+1 {{'blk.addptr' op operand #0 must be pointer or tensor of pointers, but got 'i64'}}
  %0 = "blk.addptr"(%p, %o) : (i64, i32) -> i64
  return
}

// -----

// ODS: the result has the pointer's type (AllTypesMatch).
func.func @result_type_differs(%p: !blk.ptr<f32>, %o: i32) {
  // expected-error @+1 {{'blk.addptr' op failed to verify that all of {ptr, result} have same type}}
  %0 = "blk.addptr"(%p, %o) : (!blk.ptr<f32>, i32) -> !blk.ptr<f16>
  return
}
