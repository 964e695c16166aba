// RUN: blockjit-opt %s --verify-diagnostics --convert-blk-to-nvvm

// convert-blk-to-nvvm needs the layouts (and the warp count) that
// blk-assign-layouts attaches; without them the module is rejected.

// expected-error @+1 {{run blk-assign-layouts first (no blkgpu.num_warps on the module)}}
module {
  func.func @k(%out: !blk.ptr<f32>) {
    %c = arith.constant 1.0 : f32
    blk.store %out, %c : !blk.ptr<f32>
    return
  }
}
