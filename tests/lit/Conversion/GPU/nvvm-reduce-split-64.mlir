// RUN: blockjit-opt %s --convert-blk-to-nvvm --verify-diagnostics

// 64-bit reductions of a block split over a cluster: the exchange across
// CTAs moves 32-bit slots.
#split = #blkgpu.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [1], order = [0], CTAsPerCluster = [2], CTASplitNum = [2], CTAOrder = [0]}>
module attributes {blkgpu.num_warps = 1 : i32, blkgpu.num_ctas = 2 : i32} {
  func.func @f64_sum_split(%in: !blk.ptr<f64> {blk.divisibility = 16 : i32}, %out: !blk.ptr<f64>) {
    %p = blk.splat %in : !blk.ptr<f64> -> tensor<128x!blk.ptr<f64>, #split>
    %x = blk.load %p : tensor<128x!blk.ptr<f64>, #split>
    // expected-error @+1 {{'blk.reduce' op of 'f64' on a block split over a cluster is not supported on the GPU yet}}
    %s = blk.reduce sum %x axis = 0 : tensor<128xf64, #split> -> f64
    blk.store %out, %s : !blk.ptr<f64>
    return
  }
}

