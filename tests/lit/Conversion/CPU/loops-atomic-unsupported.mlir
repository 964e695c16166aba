// RUN: blockjit-opt %s --split-input-file --verify-diagnostics --convert-blk-to-loops

// An atomic of an element type the CPU cannot lower (the DSL rejects these
// while tracing; hand-written IR gets here) is an error naming the op, the
// type and the target, on blocks and on scalar pointers alike.

func.func @max_f16(%p: !blk.ptr<f16>, %v: f16) {
  // expected-error @+1 {{'blk.atomic_rmw' op (atomic_max) of 'f16' is not supported on the CPU target (i32, i64, f32 and f64; f16 and bf16 for atomic_add only)}}
  %0 = blk.atomic_rmw max %p, %v : !blk.ptr<f16>, f16 -> f16
  return
}

// -----

func.func @cas_i8(%p: !blk.ptr<i8>, %v: i8) {
  %r = blk.make_range 0 to 4 : tensor<4xi32>
  %base = blk.splat %p : !blk.ptr<i8> -> tensor<4x!blk.ptr<i8>>
  %ps = blk.addptr %base, %r : tensor<4x!blk.ptr<i8>>, tensor<4xi32>
  %vs = blk.splat %v : i8 -> tensor<4xi8>
  // expected-error @+1 {{'blk.atomic_cas' op (atomic_cas) of 'i8' is not supported on the CPU target}}
  %0 = blk.atomic_cas %ps, %vs, %vs : tensor<4x!blk.ptr<i8>>, tensor<4xi8>, tensor<4xi8> -> tensor<4xi8>
  return
}
