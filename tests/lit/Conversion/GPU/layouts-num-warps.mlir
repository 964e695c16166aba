// RUN: blockjit-opt %s --blk-assign-layouts="num-warps=1" | FileCheck %s --check-prefix=W1
// RUN: blockjit-opt %s --blk-assign-layouts="num-warps=8" | FileCheck %s --check-prefix=W8
// RUN: blockjit-opt %s --blk-assign-layouts="num-warps=32" | FileCheck %s --check-prefix=W32
// RUN: blockjit-opt %s --blk-assign-layouts | FileCheck %s --check-prefix=DEFAULT

// warpsPerCTA is num-warps (default 4) with 32 threads per warp, and the
// module records the warp count as blkgpu.num_warps for the later GPU passes.
// Scalars and the pointer parameters keep their types.

// W1:        module attributes {blkgpu.num_warps = 1 : i32}
// W1-LABEL:  func.func @k(%{{[^:]*}}: !blk.ptr<f32> {blk.divisibility = 16 : i32}, %{{[^:]*}}: i32 {blk.divisibility = 16 : i32})
// W1:          blk.make_range 0 to 4096 : tensor<4096xi32, #blkgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>>
// W1:          blk.splat %{{.*}} : i32 -> tensor<4096xi32, #blkgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>>

// W8:        module attributes {blkgpu.num_warps = 8 : i32}
// W8:          blk.make_range 0 to 4096 : tensor<4096xi32, #blkgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]}>>

// 32 warps are 1024 threads: 4096 / 1024 = 4 elements, still [4].
// W32:       module attributes {blkgpu.num_warps = 32 : i32}
// W32:         blk.make_range 0 to 4096 : tensor<4096xi32, #blkgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [32], order = [0]}>>

// DEFAULT:   module attributes {blkgpu.num_warps = 4 : i32}
// DEFAULT:     blk.make_range 0 to 4096 : tensor<4096xi32, #blkgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
// DEFAULT:     %{{.*}} = arith.muli %{{.*}}, %{{.*}} : i32
// DEFAULT:     blk.store %{{.*}} : tensor<4096x!blk.ptr<f32>, #blkgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
func.func @k(%out: !blk.ptr<f32> {blk.divisibility = 16 : i32}, %n: i32 {blk.divisibility = 16 : i32}) {
  %r = blk.make_range 0 to 4096 : tensor<4096xi32>
  %nn = arith.muli %n, %n : i32
  %nb = blk.splat %nn : i32 -> tensor<4096xi32>
  %m = arith.cmpi slt, %r, %nb : tensor<4096xi32>
  %v = arith.sitofp %r : tensor<4096xi32> to tensor<4096xf32>
  %b = blk.splat %out : !blk.ptr<f32> -> tensor<4096x!blk.ptr<f32>>
  %p = blk.addptr %b, %r : tensor<4096x!blk.ptr<f32>>, tensor<4096xi32>
  blk.store %p, %v, %m : tensor<4096x!blk.ptr<f32>>
  return
}
