// RUN: blockjit-opt %s --split-input-file --verify-diagnostics

// BlkGPUDialect::verifyOperationAttribute: blkgpu.programs_per_cta is an i32
// power of two in 1..16 on the module (one named barrier per program), its
// CTA at most 32 warps of blkgpu.num_warps each, and never beside
// blkgpu.num_ctas (a program on a cluster has its CTAs to itself).

// expected-error @+1 {{blkgpu.programs_per_cta must be a power of two in 1..16, got 32}}
module attributes {blkgpu.programs_per_cta = 32 : i32} {
}

// -----

// expected-error @+1 {{blkgpu.programs_per_cta must be a power of two in 1..16, got 3}}
module attributes {blkgpu.programs_per_cta = 3 : i32} {
}

// -----

// expected-error @+1 {{blkgpu.programs_per_cta must be an i32, got 2 : i64}}
module attributes {blkgpu.programs_per_cta = 2 : i64} {
}

// -----

// expected-error @+1 {{blkgpu.programs_per_cta belongs on the module, not on 'func.func'}}
func.func @k() attributes {blkgpu.programs_per_cta = 2 : i32} {
  return
}

// -----

// expected-error @+1 {{blkgpu.programs_per_cta = 8 of blkgpu.num_warps = 8 make a CTA of more than 32 warps}}
module attributes {blkgpu.num_warps = 8 : i32, blkgpu.programs_per_cta = 8 : i32} {
}

// -----

// expected-error @+1 {{blkgpu.programs_per_cta and blkgpu.num_ctas exclude each other: a program on a cluster has its CTAs to itself}}
module attributes {blkgpu.num_ctas = 2 : i32, blkgpu.programs_per_cta = 2 : i32} {
}

// -----

// 8 programs of 4 warps: a CTA of 32 warps.
module attributes {blkgpu.num_warps = 4 : i32, blkgpu.programs_per_cta = 8 : i32} {
}
