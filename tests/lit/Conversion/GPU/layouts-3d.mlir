// RUN: blockjit-opt %s --split-input-file --blk-assign-layouts="num-warps=4" | FileCheck %s

// Blocks of rank 3 and more get the linear distribution of their element
// count like any block (docs/LAYOUTS.md, linearBlockedLayout): the vector,
// the 32 lanes and the warps fill the dimensions innermost first, and
// dimension 0 takes what is left (wrapping when the block is smaller than
// the threads).

// 2x2x4 (16 elements for 128 threads): lanes 4 x 2 x 4, the last 4 lanes
// and all 4 warps wrap on dimension 0 (replicas).
// CHECK-LABEL: func.func @smaller_than_threads
// CHECK:         arith.constant dense<1.000000e+00> : tensor<2x2x4xf32, #blkgpu.blocked<{sizePerThread = [1, 1, 1], threadsPerWarp = [4, 2, 4], warpsPerCTA = [4, 1, 1], order = [2, 1, 0]}>>
func.func @smaller_than_threads(%out: !blk.ptr<f32>) {
  %c = arith.constant dense<1.0> : tensor<2x2x4xf32>
  %s = blk.reduce sum %c axis = 0 : tensor<2x2x4xf32> -> tensor<2x4xf32>
  return
}

// -----

// Rank 4: a 2x4x8x16 f16 load (1024 elements, 8 per thread) gets a vector
// of 8 along the last dimension (16 = 2 chunks), lanes 2 x 8 x 2 over the
// last three, warps 2 x 2 over the first two; the 4x8x32 block of the same
// element count shares its vector (lanes 8 x 4, warps on dimension 0).
// CHECK-LABEL: func.func @rank4
// CHECK:         blk.load %{{.*}} : tensor<2x4x8x16x!blk.ptr<f16>, #blkgpu.blocked<{sizePerThread = [1, 1, 1, 8], threadsPerWarp = [1, 2, 8, 2], warpsPerCTA = [2, 2, 1, 1], order = [3, 2, 1, 0]}>>
// CHECK:         blk.reshape %{{.*}} : tensor<2x4x8x16xf16, #blkgpu.blocked<{{.*}}>> -> tensor<4x8x32xf16, #blkgpu.blocked<{sizePerThread = [1, 1, 8], threadsPerWarp = [1, 8, 4], warpsPerCTA = [4, 1, 1], order = [2, 1, 0]}>>
func.func @rank4(%in: !blk.ptr<f16>) {
  %b = blk.splat %in : !blk.ptr<f16> -> tensor<2x4x8x16x!blk.ptr<f16>>
  %x = blk.load %b : tensor<2x4x8x16x!blk.ptr<f16>>
  %y = blk.reshape %x : tensor<2x4x8x16xf16> -> tensor<4x8x32xf16>
  return
}
