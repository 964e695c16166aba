// RUN: blockjit-opt %s --split-input-file --verify-diagnostics

// BlkGPUDialect::verifyOperationAttribute: blkgpu.num_ctas is an i32 power
// of two in 1..16 on the module, every register layout in the module spreads
// over that many CTAs, and blkgpu.cluster_fallback is a string.

// expected-error @+1 {{blkgpu.num_ctas must be a power of two in 1..16, got 32}}
module attributes {blkgpu.num_ctas = 32 : i32} {
}

// -----

// expected-error @+1 {{blkgpu.num_ctas must be a power of two in 1..16, got 3}}
module attributes {blkgpu.num_ctas = 3 : i32} {
}

// -----

// expected-error @+1 {{blkgpu.num_ctas must be an i32, got 2 : i64}}
module attributes {blkgpu.num_ctas = 2 : i64} {
}

// -----

// expected-error @+1 {{blkgpu.num_ctas belongs on the module, not on 'func.func'}}
func.func @k() attributes {blkgpu.num_ctas = 2 : i32} {
  return
}

// -----

// expected-error @+1 {{blkgpu.cluster_fallback is a string on the module}}
module attributes {blkgpu.cluster_fallback = 1 : i32} {
}

// -----

// A layout over a cluster of 4 CTAs in a module of 2.
module attributes {blkgpu.num_ctas = 2 : i32, blkgpu.num_warps = 4 : i32} {
  func.func @k() {
    // expected-error @+1 {{'blk.make_range' op uses 'tensor<8192xi32, #blkgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0], CTAsPerCluster = [4], CTASplitNum = [4], CTAOrder = [0]}>>', a layout with 4 CTAs per cluster, in a module of blkgpu.num_ctas = 2}}
    %r = blk.make_range 0 to 8192 : tensor<8192xi32, #blkgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0], CTAsPerCluster = [4], CTASplitNum = [4], CTAOrder = [0]}>>
    return
  }
}
