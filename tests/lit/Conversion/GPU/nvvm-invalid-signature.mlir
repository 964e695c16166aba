// RUN: blockjit-opt %s --verify-diagnostics --convert-blk-to-nvvm

// convert-blk-to-nvvm may run alone on a module that already says how many
// warps it has; it checks the kernel signature itself, as blk-verify-kernels
// would have (a block parameter would have no per-thread elements to start
// from).

module attributes {blkgpu.num_warps = 4 : i32} {
  // expected-error @+1 {{'func.func' op returns values; a kernel returns nothing (it writes its results through pointers)}}
  func.func @returns_value(%x: f32) -> f32 {
    return %x : f32
  }
}
