// RUN: blockjit-opt %s --split-input-file --verify-diagnostics

// Verifier errors of blk.store, in the generic form (the custom form infers
// consistent types).

func.func @value_type_mismatch(%p: tensor<4x!blk.ptr<f32>>, %v: tensor<4xf16>) {
  // expected-error @+1 {{'blk.store' op value type 'tensor<4xf16>' must be 'tensor<4xf32>' (the pointee type with the pointers' shape)}}
  "blk.store"(%p, %v) : (tensor<4x!blk.ptr<f32>>, tensor<4xf16>) -> ()
  return
}

// -----

func.func @value_shape_mismatch(%p: tensor<4x!blk.ptr<f32>>, %v: f32) {
  // expected-error @+1 {{value type 'f32' must be 'tensor<4xf32>' (the pointee type with the pointers' shape)}}
  "blk.store"(%p, %v) : (tensor<4x!blk.ptr<f32>>, f32) -> ()
  return
}

// -----

func.func @scalar_value_mismatch(%p: !blk.ptr<i32>, %v: i64) {
  // expected-error @+1 {{value type 'i64' must be 'i32'}}
  "blk.store"(%p, %v) : (!blk.ptr<i32>, i64) -> ()
  return
}

// -----

func.func @mask_shape_mismatch(%p: tensor<4x!blk.ptr<f32>>, %v: tensor<4xf32>, %m: tensor<2x2xi1>) {
  // expected-error @+1 {{'blk.store' op mask type 'tensor<2x2xi1>' must be 'tensor<4xi1>' (i1 with the pointers' shape)}}
  "blk.store"(%p, %v, %m) : (tensor<4x!blk.ptr<f32>>, tensor<4xf32>, tensor<2x2xi1>) -> ()
  return
}

// -----

func.func @scalar_mask_for_block(%p: tensor<4x!blk.ptr<f32>>, %v: tensor<4xf32>, %m: i1) {
  // expected-error @+1 {{mask type 'i1' must be 'tensor<4xi1>' (i1 with the pointers' shape)}}
  "blk.store"(%p, %v, %m) : (tensor<4x!blk.ptr<f32>>, tensor<4xf32>, i1) -> ()
  return
}

// -----

// ODS: the mask is i1 or a tensor of i1.
func.func @mask_not_i1(%p: tensor<4x!blk.ptr<f32>>, %v: tensor<4xf32>, %m: tensor<4xi8>) {
  // expected-error @+1 {{'blk.store' op operand #2 must be i1 or tensor of i1, but got 'tensor<4xi8>'}}
  "blk.store"(%p, %v, %m) : (tensor<4x!blk.ptr<f32>>, tensor<4xf32>, tensor<4xi8>) -> ()
  return
}

// -----

// ODS: the pointers must be pointers.
func.func @not_a_pointer(%p: i64, %v: f32) {
  // expected-error @+1 {{'blk.store' op operand #0 must be pointer or tensor of pointers, but got 'i64'}}
  "blk.store"(%p, %v) : (i64, f32) -> ()
  return
}

// -----

// ODS: store has no results.
func.func @has_result(%p: !blk.ptr<f32>, %v: f32) {
  // expected-error @+1 {{'blk.store' op requires zero results}}
  %0 = "blk.store"(%p, %v) : (!blk.ptr<f32>, f32) -> i32
  return
}

// -----

// ODS: at most one mask.
func.func @two_masks(%p: !blk.ptr<f32>, %v: f32, %m: i1) {
  // expected-error @+1 {{'blk.store' op operand group starting at #2 requires 0 or 1 element, but found 2}}
  "blk.store"(%p, %v, %m, %m) : (!blk.ptr<f32>, f32, i1, i1) -> ()
  return
}

// -----

// ODS: pointers and a value are required.
func.func @pointer_only(%p: !blk.ptr<f32>) {
  // expected-error @+1 {{'blk.store' op expected 2 or more operands, but found 1}}
  "blk.store"(%p) : (!blk.ptr<f32>) -> ()
  return
}
