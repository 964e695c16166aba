// RUN: blockjit-opt %s --split-input-file --verify-diagnostics \
// RUN:   --blk-assign-layouts="num-warps=4" --convert-blk-to-nvvm

// What convert-blk-to-nvvm rejects rather than miscompiles.

// Only scf.for may carry blocks through a region.
func.func @if_yields_block(%out: !blk.ptr<f32>, %c: i1, %v: f32, %w: f32) {
  // expected-error @+1 {{'scf.if' op on blocks has no GPU lowering (only scf.for may carry blocks)}}
  %x = scf.if %c -> (tensor<128xf32>) {
    %a = blk.splat %v : f32 -> tensor<128xf32>
    scf.yield %a : tensor<128xf32>
  } else {
    %b = blk.splat %w : f32 -> tensor<128xf32>
    scf.yield %b : tensor<128xf32>
  }
  %s = blk.reduce sum %x axis = 0 : tensor<128xf32> -> f32
  blk.store %out, %s : !blk.ptr<f32>
  return
}

// -----

// An op on blocks that is neither a blk op, a constant nor a one-result
// elementwise op has no per-thread lowering.
func.func @two_results(%out: !blk.ptr<i32>, %v: i32) {
  %a = blk.splat %v : i32 -> tensor<128xi32>
  // expected-error @+1 {{'arith.addui_extended' op on blocks has no GPU lowering}}
  %sum, %carry = arith.addui_extended %a, %a : tensor<128xi32>, tensor<128xi1>
  %s = blk.reduce sum %sum axis = 0 : tensor<128xi32> -> i32
  blk.store %out, %s : !blk.ptr<i32>
  return
}
