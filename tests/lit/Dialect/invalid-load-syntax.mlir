// RUN: blockjit-opt %s --split-input-file --verify-diagnostics

// Errors of blk.load's custom parser.

func.func @no_operands(%p: !blk.ptr<f32>) {
  // expected-error @+1 {{custom op 'blk.load' expected pointers, then optionally a mask and an 'other' value}}
  %0 = blk.load : !blk.ptr<f32>
  return
}

// -----

func.func @too_many_operands(%p: !blk.ptr<f32>, %m: i1, %o: f32) {
  // expected-error @+1 {{expected pointers, then optionally a mask and an 'other' value}}
  %0 = blk.load %p, %m, %o, %o : !blk.ptr<f32>
  return
}

// -----

func.func @type_not_pointer(%p: f32) {
  // expected-error @+1 {{custom op 'blk.load' expected a !blk.ptr or a tensor of them, got 'f32'}}
  %0 = blk.load %p : f32
  return
}

// -----

func.func @tensor_not_of_pointers(%p: tensor<4xf32>) {
  // expected-error @+1 {{expected a !blk.ptr or a tensor of them, got 'tensor<4xf32>'}}
  %0 = blk.load %p : tensor<4xf32>
  return
}

// -----

func.func @unranked_pointers(%p: tensor<*x!blk.ptr<f32>>) {
  // expected-error @+1 {{expected a !blk.ptr or a tensor of them, got 'tensor<*x!blk.ptr<f32>>'}}
  %0 = blk.load %p : tensor<*x!blk.ptr<f32>>
  return
}

// -----

func.func @missing_type(%p: !blk.ptr<f32>) {
  // expected-error @+1 {{expected ':'}}
  %0 = blk.load %p
  return
}

// -----

// The parser gives the mask the type i1-with-the-pointers'-shape, so a mask
// value of another type conflicts with its definition.
// expected-note @+1 {{prior use here}}
func.func @mask_wrong_type(%p: !blk.ptr<f32>, %m: i32) {
  // expected-error @+1 {{use of value '%m' expects different type than prior uses: 'i1' vs 'i32'}}
  %0 = blk.load %p, %m : !blk.ptr<f32>
  return
}

// -----

// ... and 'other' the loaded type.
// expected-note @+1 {{prior use here}}
func.func @other_wrong_type(%p: tensor<4x!blk.ptr<f32>>, %m: tensor<4xi1>, %o: tensor<4xf16>) {
  // expected-error @+1 {{use of value '%o' expects different type than prior uses: 'tensor<4xf32>' vs 'tensor<4xf16>'}}
  %0 = blk.load %p, %m, %o : tensor<4x!blk.ptr<f32>>
  return
}

// -----

// ... and the pointers the written type.
// expected-note @+1 {{prior use here}}
func.func @pointer_type_mismatch(%p: !blk.ptr<f32>) {
  // expected-error @+1 {{use of value '%p' expects different type than prior uses: '!blk.ptr<f16>' vs '!blk.ptr<f32>'}}
  %0 = blk.load %p : !blk.ptr<f16>
  return
}

// -----

func.func @unknown_eviction(%p: !blk.ptr<f32>) {
  // expected-error @+1 {{expected ':'}}
  %0 = blk.load %p evict_sideways : !blk.ptr<f32>
  return
}
