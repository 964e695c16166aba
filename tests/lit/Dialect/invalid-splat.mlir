// RUN: blockjit-opt %s --split-input-file --verify-diagnostics

func.func @splat_of_tensor(%t: tensor<4xf32>) {
  // expected-error @+1 {{'blk.splat' op splats a scalar, got 'tensor<4xf32>'}}
  %0 = blk.splat %t : tensor<4xf32> -> tensor<4x4xf32>
  return
}

// -----

func.func @splat_of_vector(%v: vector<4xf32>) {
  // expected-error @+1 {{'blk.splat' op splats a scalar, got 'vector<4xf32>'}}
  %0 = blk.splat %v : vector<4xf32> -> tensor<4xvector<4xf32>>
  return
}

// -----

func.func @dynamic_result(%x: f32) {
  // expected-error @+1 {{'blk.splat' op result #0 must be statically shaped ranked tensor of any type values, but got 'tensor<?xf32>'}}
  %0 = blk.splat %x : f32 -> tensor<?xf32>
  return
}

// -----

func.func @partly_dynamic_result(%x: i32) {
  // expected-error @+1 {{must be statically shaped ranked tensor of any type values, but got 'tensor<4x?xi32>'}}
  %0 = blk.splat %x : i32 -> tensor<4x?xi32>
  return
}

// -----

func.func @element_type_mismatch(%x: f32) {
  // expected-error @+1 {{'blk.splat' op result element type 'f16' must match the splatted value's type 'f32'}}
  %0 = blk.splat %x : f32 -> tensor<4xf16>
  return
}

// -----

func.func @ptr_pointee_mismatch(%p: !blk.ptr<f32>) {
  // expected-error @+1 {{result element type '!blk.ptr<f16>' must match the splatted value's type '!blk.ptr<f32>'}}
  %0 = blk.splat %p : !blk.ptr<f32> -> tensor<4x!blk.ptr<f16>>
  return
}

// -----

// ODS: the result must be a ranked tensor (custom form).
func.func @scalar_result(%x: f32) {
  // expected-error @+1 {{invalid kind of type specified: expected builtin.tensor, but found 'f32'}}
  %0 = blk.splat %x : f32 -> f32
  return
}

// -----

// ODS: the result must be a ranked tensor (generic form).
func.func @unranked_result(%x: f32) {
  // expected-error @+1 {{'blk.splat' op result #0 must be statically shaped ranked tensor of any type values, but got 'tensor<*xf32>'}}
  %0 = "blk.splat"(%x) : (f32) -> tensor<*xf32>
  return
}
