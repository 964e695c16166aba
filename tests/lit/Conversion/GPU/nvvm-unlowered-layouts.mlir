// RUN: blockjit-opt %s --split-input-file --verify-diagnostics --convert-blk-to-nvvm

// convert-blk-to-nvvm run alone on a block whose layout it does not lower
// (a non-linear blocked layout here; slice and shared layouts alike) reports
// it, as blk-assign-layouts does, instead of reaching layoutOf's assert.

module attributes {blkgpu.num_warps = 4 : i32} {
func.func @not_linear(%in: !blk.ptr<f32>) {
  // expected-error @+1 {{whose layout the GPU lowering does not implement yet}}
  %b = blk.splat %in : !blk.ptr<f32> -> tensor<16x64x!blk.ptr<f32>, #blkgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>>
  return
}
}

// -----

module attributes {blkgpu.num_warps = 4 : i32} {
func.func @other_warps(%in: !blk.ptr<f32>) {
  // expected-error @+1 {{a layout with 8 warps, in a module of blkgpu.num_warps = 4}}
  %b = blk.splat %in : !blk.ptr<f32> -> tensor<1024x!blk.ptr<f32>, #blkgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]}>>
  return
}
}
