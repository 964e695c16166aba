// RUN: blockjit-opt %s --split-input-file --verify-diagnostics

// BlkGPUDialect::verifyOperationAttribute: blkgpu.num_warps is an i32
// power of two in 1..32 on the module, and every register layout in the
// module has that many warps.

// expected-error @+1 {{blkgpu.num_warps must be a power of two in 1..32, got 3}}
module attributes {blkgpu.num_warps = 3 : i32} {
}

// -----

// expected-error @+1 {{blkgpu.num_warps must be a power of two in 1..32, got 64}}
module attributes {blkgpu.num_warps = 64 : i32} {
}

// -----

// expected-error @+1 {{blkgpu.num_warps must be a power of two in 1..32, got 0}}
module attributes {blkgpu.num_warps = 0 : i32} {
}

// -----

// expected-error @+1 {{blkgpu.num_warps must be an i32, got 4 : i64}}
module attributes {blkgpu.num_warps = 4 : i64} {
}

// -----

// expected-error @+1 {{blkgpu.num_warps must be an i32, got "four"}}
module attributes {blkgpu.num_warps = "four"} {
}

// -----

// expected-error @+1 {{blkgpu.num_warps belongs on the module, not on 'func.func'}}
func.func @k() attributes {blkgpu.num_warps = 4 : i32} {
  return
}

// -----

// expected-error @+1 {{unknown blkgpu attribute 'blkgpu.num_threads' (the module takes blkgpu.num_warps, blkgpu.num_ctas, blkgpu.programs_per_cta, blkgpu.dynamic_shared_bytes, blkgpu.residency and blkgpu.cluster_fallback, blk.reduce and blkgpu.all_reduce blkgpu.cta_local, blk.make_range and blk.broadcast blkgpu.rematerialized, scf.if blkgpu.versioned_access and blk.load blkgpu.branch_free and blkgpu.stretched_dims)}}
module attributes {blkgpu.num_threads = 128 : i32} {
}

// -----

// A layout of 8 warps in a module of 4, on an op result.
module attributes {blkgpu.num_warps = 4 : i32} {
  func.func @k() {
    // expected-error @+1 {{'blk.make_range' op uses 'tensor<1024xi32, #blkgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]}>>', a layout with 8 warps, in a module of blkgpu.num_warps = 4}}
    %r = blk.make_range 0 to 1024 : tensor<1024xi32, #blkgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]}>>
    return
  }
}

// -----

// A slice has the warps of its parent; block arguments are checked too.
module attributes {blkgpu.num_warps = 8 : i32} {
  // expected-error @+1 {{'func.func' op uses 'tensor<16xf32, #blkgpu.slice<{dim = 1, parent = #blkgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>}>>', a layout with 4 warps, in a module of blkgpu.num_warps = 8}}
  func.func @k(%x: tensor<16xf32, #blkgpu.slice<{dim = 1, parent = #blkgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>}>>) {
    return
  }
}
