// RUN: blockjit-opt %s --split-input-file --verify-diagnostics

// Verifier errors of blk.atomic_rmw and blk.atomic_cas.

func.func @pointee_not_a_number(%p: !blk.ptr<i1>, %v: i1) {
  // expected-error @+1 {{'blk.atomic_rmw' op needs pointers to integers or floats, got '!blk.ptr<i1>'}}
  %0 = blk.atomic_rmw add %p, %v : !blk.ptr<i1>, i1 -> i1
  return
}

// -----

func.func @value_type(%p: tensor<4x!blk.ptr<f32>>, %v: tensor<4xf16>) {
  // expected-error @+1 {{'blk.atomic_rmw' op value type 'tensor<4xf16>' must be 'tensor<4xf32>' (the pointee type with the pointers' shape)}}
  %0 = blk.atomic_rmw max %p, %v : tensor<4x!blk.ptr<f32>>, tensor<4xf16> -> tensor<4xf32>
  return
}

// -----

func.func @value_shape(%p: tensor<4x!blk.ptr<f32>>, %v: f32) {
  // expected-error @+1 {{value type 'f32' must be 'tensor<4xf32>'}}
  %0 = blk.atomic_rmw xchg %p, %v : tensor<4x!blk.ptr<f32>>, f32 -> tensor<4xf32>
  return
}

// -----

func.func @mask_shape(%p: tensor<4x!blk.ptr<i32>>, %v: tensor<4xi32>, %m: tensor<2x2xi1>) {
  // expected-error @+1 {{'blk.atomic_rmw' op mask type 'tensor<2x2xi1>' must be 'tensor<4xi1>' (i1 with the pointers' shape)}}
  %0 = blk.atomic_rmw add %p, %v, %m : tensor<4x!blk.ptr<i32>>, tensor<4xi32>, tensor<2x2xi1> -> tensor<4xi32>
  return
}

// -----

func.func @result_type(%p: tensor<4x!blk.ptr<i32>>, %v: tensor<4xi32>) {
  // expected-error @+1 {{'blk.atomic_rmw' op result type 'tensor<4xi64>' must be 'tensor<4xi32>' (the old values: the pointee type with the pointers' shape)}}
  %0 = blk.atomic_rmw min %p, %v : tensor<4x!blk.ptr<i32>>, tensor<4xi32> -> tensor<4xi64>
  return
}

// -----

func.func @cas_cmp_type(%p: !blk.ptr<i64>, %c: i32, %v: i64) {
  // expected-error @+1 {{'blk.atomic_cas' op cmp type 'i32' must be 'i64' (the pointee type with the pointers' shape)}}
  %0 = blk.atomic_cas %p, %c, %v : !blk.ptr<i64>, i32, i64 -> i64
  return
}

// -----

func.func @cas_value_type(%p: !blk.ptr<i64>, %c: i64, %v: f64) {
  // expected-error @+1 {{'blk.atomic_cas' op value type 'f64' must be 'i64'}}
  %0 = blk.atomic_cas %p, %c, %v : !blk.ptr<i64>, i64, f64 -> i64
  return
}

// -----

func.func @cas_mask(%p: !blk.ptr<i64>, %c: i64, %m: tensor<2xi1>) {
  // expected-error @+1 {{'blk.atomic_cas' op mask type 'tensor<2xi1>' must be 'i1' (i1 with the pointers' shape)}}
  %0 = blk.atomic_cas %p, %c, %c, %m : !blk.ptr<i64>, i64, i64, tensor<2xi1> -> i64
  return
}

// -----

func.func @cas_result(%p: !blk.ptr<f32>, %c: f32) {
  // expected-error @+1 {{'blk.atomic_cas' op result type 'i32' must be 'f32'}}
  %0 = blk.atomic_cas %p, %c, %c : !blk.ptr<f32>, f32, f32 -> i32
  return
}

// -----

func.func @not_a_pointer(%p: i32, %v: i32) {
  // expected-error @+1 {{'blk.atomic_rmw' op operand #0 must be pointer or tensor of pointers}}
  %0 = blk.atomic_rmw add %p, %v : i32, i32 -> i32
  return
}
