// RUN: blockjit-opt %s --split-input-file --verify-diagnostics

// PtrType::verify: a !blk.ptr points to integer or float elements.

// expected-error @+1 {{!blk.ptr points to integer or float elements, not 'index'}}
func.func @index_pointee(%p: !blk.ptr<index>) {
  return
}

// -----

// expected-error @+1 {{!blk.ptr points to integer or float elements, not '!blk.ptr<f32>'}}
func.func @pointer_to_pointer(%p: !blk.ptr<!blk.ptr<f32>>) {
  return
}

// -----

// expected-error @+1 {{!blk.ptr points to integer or float elements, not 'vector<4xf32>'}}
func.func @vector_pointee(%p: tensor<4x!blk.ptr<vector<4xf32>>>) {
  return
}

// -----

// expected-error @+1 {{!blk.ptr points to integer or float elements, not 'tensor<4xf32>'}}
func.func @tensor_pointee(%p: !blk.ptr<tensor<4xf32>>) {
  return
}

// -----

// expected-error @+1 {{!blk.ptr points to integer or float elements, not 'complex<f32>'}}
func.func @complex_pointee(%p: !blk.ptr<complex<f32>>) {
  return
}

// -----

func.func @in_op_type(%x: f32) {
  // expected-error @+1 {{!blk.ptr points to integer or float elements, not 'none'}}
  %0 = builtin.unrealized_conversion_cast %x : f32 to !blk.ptr<none>
  return
}

// -----

// Syntax errors of the type.

// expected-error @+2 {{expected non-function type}}
// expected-error @+1 {{failed to parse Blk_PtrType parameter 'pointeeType'}}
func.func @empty_pointee(%p: !blk.ptr<>) {
  return
}

// -----

// expected-error @+1 {{expected '<'}}
func.func @missing_pointee(%p: !blk.ptr) {
  return
}

// -----

// expected-error @+1 {{unknown  type `pointer` in dialect `blk`}}
func.func @unknown_type(%p: !blk.pointer<f32>) {
  return
}
