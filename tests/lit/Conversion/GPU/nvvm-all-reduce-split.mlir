// RUN: blockjit-opt %s --split-input-file --convert-blk-to-nvvm --verify-diagnostics

// blk-assign-layouts splits a blkgpu.all_reduce over a cluster only where
// the cluster buffer holds its lines and its partials are 32-bit (else the
// kernel runs in one CTA); hand-written IR that splits another gets an
// error naming it, not a failed legalization.

// 64x1024 f32 down the columns on 4 CTAs (vector 8): each of the 128
// threads holds 8 columns (16 rows each in registers) and sends their 8
// partials packed in two 16-byte runs (clusterLineSlots(8) = 4 slots) to
// each of 4 CTAs: 4 CTAs x 128 writers x 4 slots = 2048 slots a half,
// 2 x 2048 x 8 = 32 KB of cluster buffer. (64x512 at vector 4 packs its 4
// partials a thread in 2 slots: 2 x 4 x 128 x 2 x 8 = 16384 bytes, just
// at the limit, and lowers.)
#split = #blkgpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0], CTAsPerCluster = [4, 1], CTASplitNum = [4, 1], CTAOrder = [1, 0]}>
module attributes {blkgpu.num_warps = 4 : i32, blkgpu.num_ctas = 4 : i32} {
  func.func @wide(%in: !blk.ptr<f32>) {
    %p = blk.splat %in : !blk.ptr<f32> -> tensor<64x1024x!blk.ptr<f32>, #split>
    %x = blk.load %p : tensor<64x1024x!blk.ptr<f32>, #split>
    // expected-error @+1 {{'blkgpu.all_reduce' op along axis 0 of a block split over a cluster would exchange 32768 bytes through the cluster buffer; at most 16384 (blk-assign-layouts runs such a kernel in one CTA)}}
    %m = blkgpu.all_reduce max %x axis = 0 : tensor<64x1024xf32, #split>
    blk.store %p, %m : tensor<64x1024x!blk.ptr<f32>, #split>
    return
  }
}

// -----

#split = #blkgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0], CTAsPerCluster = [2], CTASplitNum = [2], CTAOrder = [0]}>
module attributes {blkgpu.num_warps = 1 : i32, blkgpu.num_ctas = 2 : i32} {
  func.func @f64(%in: !blk.ptr<f64>) {
    %p = blk.splat %in : !blk.ptr<f64> -> tensor<2048x!blk.ptr<f64>, #split>
    %x = blk.load %p : tensor<2048x!blk.ptr<f64>, #split>
    // expected-error @+1 {{'blkgpu.all_reduce' op of 'f64' on a block split over a cluster is not supported on the GPU yet}}
    %m = blkgpu.all_reduce sum %x axis = 0 : tensor<2048xf64, #split>
    blk.store %p, %m : tensor<2048x!blk.ptr<f64>, #split>
    return
  }
}
