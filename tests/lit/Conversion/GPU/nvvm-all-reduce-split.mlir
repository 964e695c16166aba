// RUN: blockjit-opt %s --convert-blk-to-nvvm --verify-diagnostics

// blk-assign-layouts never splits a blkgpu.all_reduce over a cluster (the
// kernel runs in one CTA); hand-written IR that does gets an error naming
// it, not a failed legalization.

#split = #blkgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0], CTAsPerCluster = [2], CTASplitNum = [2], CTAOrder = [0]}>
module attributes {blkgpu.num_warps = 1 : i32, blkgpu.num_ctas = 2 : i32} {
  func.func @split(%in: !blk.ptr<f32>, %out: !blk.ptr<f32>) {
    %p = blk.splat %in : !blk.ptr<f32> -> tensor<2048x!blk.ptr<f32>, #split>
    %x = blk.load %p : tensor<2048x!blk.ptr<f32>, #split>
    // expected-error @+1 {{'blkgpu.all_reduce' op on a block split over the CTAs of a cluster has no GPU lowering}}
    %m = blkgpu.all_reduce max %x axis = 0 : tensor<2048xf32, #split>
    %q = blk.splat %out : !blk.ptr<f32> -> tensor<2048x!blk.ptr<f32>, #split>
    blk.store %q, %m : tensor<2048x!blk.ptr<f32>, #split>
    return
  }
}
