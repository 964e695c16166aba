// RUN: blockjit-opt %s --convert-blk-to-loops --split-input-file --verify-diagnostics

// Only splat block constants can be recomputed per element; a dense constant
// with distinct elements is rejected rather than miscompiled.
func.func @non_splat_constant(%out: !blk.ptr<i32>) {
  // expected-error @+1 {{'arith.constant' op non-splat block constants are not supported on the CPU}}
  %c = arith.constant dense<[0, 1, 2, 3]> : tensor<4xi32>
  %s = blk.reduce sum %c axis = 0 : tensor<4xi32> -> i32
  blk.store %out, %s : !blk.ptr<i32>
  return
}

// -----

// A loop carrying a block of pointers is rejected; offsets must be carried.
func.func @carried_pointers(%in: !blk.ptr<f32>, %out: !blk.ptr<f32>, %n: i32) {
  %r = blk.make_range 0 to 8 : tensor<8xi32>
  %base = blk.splat %in : !blk.ptr<f32> -> tensor<8x!blk.ptr<f32>>
  %p0 = blk.addptr %base, %r : tensor<8x!blk.ptr<f32>>, tensor<8xi32>
  %step = blk.splat %n : i32 -> tensor<8xi32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  // expected-error @+1 {{'scf.for' op carries a block of pointers, which the CPU backend does not support yet; carry integer offsets instead}}
  %p = scf.for %k = %c0 to %n step %c1 iter_args(%q = %p0) -> (tensor<8x!blk.ptr<f32>>) : i32 {
    %q2 = blk.addptr %q, %step : tensor<8x!blk.ptr<f32>>, tensor<8xi32>
    scf.yield %q2 : tensor<8x!blk.ptr<f32>>
  }
  %x = blk.load %p : tensor<8x!blk.ptr<f32>>
  %s = blk.reduce sum %x axis = 0 : tensor<8xf32> -> f32
  blk.store %out, %s : !blk.ptr<f32>
  return
}

// -----

// Region ops other than scf.for have no CPU lowering when they produce blocks.
func.func @if_yields_block(%out: !blk.ptr<f32>, %c: i1, %v: f32, %w: f32) {
  // expected-error @+1 {{'scf.if' op on blocks has no CPU lowering}}
  %x = scf.if %c -> (tensor<8xf32>) {
    %a = blk.splat %v : f32 -> tensor<8xf32>
    scf.yield %a : tensor<8xf32>
  } else {
    %b = blk.splat %w : f32 -> tensor<8xf32>
    scf.yield %b : tensor<8xf32>
  }
  %s = blk.reduce sum %x axis = 0 : tensor<8xf32> -> f32
  blk.store %out, %s : !blk.ptr<f32>
  return
}
