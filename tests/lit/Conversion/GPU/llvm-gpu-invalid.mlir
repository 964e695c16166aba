// RUN: blockjit-opt %s --verify-diagnostics --convert-blk-to-llvm-gpu

// convert-blk-to-llvm-gpu takes the kernel's thread count (nvvm.maxntid)
// from blkgpu.num_warps; a module that never went through blk-assign-layouts
// is rejected.

// expected-error @+1 {{run blk-assign-layouts first (no blkgpu.num_warps on the module)}}
module {
  func.func @k(%out: !blk.ptr<f32>) {
    %c = arith.constant 1.0 : f32
    blk.store %out, %c : !blk.ptr<f32>
    return
  }
}
