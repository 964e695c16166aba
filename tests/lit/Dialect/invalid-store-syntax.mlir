// RUN: blockjit-opt %s --split-input-file --verify-diagnostics

// Errors of blk.store's custom parser.

func.func @pointer_only(%p: !blk.ptr<f32>) {
  // expected-error @+1 {{custom op 'blk.store' expected pointers, a value and optionally a mask}}
  blk.store %p : !blk.ptr<f32>
  return
}

// -----

func.func @no_operands() {
  // expected-error @+1 {{expected pointers, a value and optionally a mask}}
  blk.store : !blk.ptr<f32>
  return
}

// -----

func.func @too_many_operands(%p: !blk.ptr<f32>, %v: f32, %m: i1) {
  // expected-error @+1 {{expected pointers, a value and optionally a mask}}
  blk.store %p, %v, %m, %m : !blk.ptr<f32>
  return
}

// -----

func.func @type_not_pointer(%p: i64, %v: f32) {
  // expected-error @+1 {{custom op 'blk.store' expected a !blk.ptr or a tensor of them, got 'i64'}}
  blk.store %p, %v : i64
  return
}

// -----

func.func @tensor_not_of_pointers(%p: tensor<8xi64>, %v: tensor<8xf32>) {
  // expected-error @+1 {{expected a !blk.ptr or a tensor of them, got 'tensor<8xi64>'}}
  blk.store %p, %v : tensor<8xi64>
  return
}

// -----

// The parser gives the value the pointee type with the pointers' shape.
// expected-note @+1 {{prior use here}}
func.func @value_wrong_type(%p: !blk.ptr<f32>, %v: f16) {
  // expected-error @+1 {{use of value '%v' expects different type than prior uses: 'f32' vs 'f16'}}
  blk.store %p, %v : !blk.ptr<f32>
  return
}

// -----

// ... and the mask i1 with the pointers' shape.
// expected-note @+1 {{prior use here}}
func.func @mask_wrong_shape(%p: tensor<4x!blk.ptr<f32>>, %v: tensor<4xf32>, %m: tensor<8xi1>) {
  // expected-error @+1 {{use of value '%m' expects different type than prior uses: 'tensor<4xi1>' vs 'tensor<8xi1>'}}
  blk.store %p, %v, %m : tensor<4x!blk.ptr<f32>>
  return
}
