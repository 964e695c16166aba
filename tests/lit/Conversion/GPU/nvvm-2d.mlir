// RUN: blockjit-opt %s --blk-assign-layouts="num-warps=4" | FileCheck %s --check-prefix=LAYOUT
// RUN: blockjit-opt %s --blk-assign-layouts="num-warps=4" --convert-blk-to-nvvm | FileCheck %s

// 2-D blocks on the GPU: distributed by their row-major linear index, so
// expand_dims keeps the elements of its source in every thread (same element
// count, same vector); a broadcast of a computed block and the result of a
// 2-D reduction cross threads through one shared scratch array (64 bytes
// here), fenced by barriers. Each shape gets that linear distribution in per-dimension form:
// 16x64 f32 has 4 consecutive elements per thread, 16 threads along a row of
// 64, 2 rows per warp and 4 warps down the rows; 16x1 puts all threads on the
// rows; 1x64 (64 elements for 128 threads) puts two warps along its row and
// wraps the other two onto it (replicas).

// LAYOUT: blk.expand_dims %{{.*}} axis = 1 : tensor<16xi32, #blkgpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>> -> tensor<16x1xi32, #blkgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]}>>
// LAYOUT: blk.expand_dims %{{.*}} axis = 0 : tensor<64xi32, #blkgpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>> -> tensor<1x64xi32, #blkgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]}>>
// LAYOUT: blk.load %{{.*}} : tensor<16x64x!blk.ptr<f32>, #blkgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>>
// LAYOUT: blk.reduce sum %{{.*}} axis = 1 : tensor<16x64xf32, #blkgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>> -> tensor<16xf32, #blkgpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>

// CHECK:       llvm.mlir.global internal @__blk_smem_row_sum() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<64 x i8>
// CHECK-LABEL: func.func @row_sum
// Broadcast of the row offsets: publish, barrier, read, barrier.
// CHECK:         llvm.store %{{.*}}, %{{.*}} : i32, !llvm.ptr<3>
// CHECK:         nvvm.barrier0
// CHECK:         llvm.load %{{.*}} : !llvm.ptr<3> -> i32
// CHECK:         nvvm.barrier0
// The row stride is a multiple of 16: each thread's 4 columns of its 2 rows
// are two 16-byte loads (layouts-coalesce.mlir: an odd stride).
// CHECK-COUNT-2: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// The row sums: each thread's 2 rows summed in-thread (4 columns each),
// then across the 16 lanes of a row (offsets 1, 2, 4, 8); the lanes at
// column 0 write the 2 sums to the result's slots, a barrier, each thread
// reads the sum it owns, a barrier. 16 values cross threads, not 1024.
// CHECK-COUNT-2: nvvm.shfl.sync  bfly %{{.*}}, %{{.*}}, %c1_i32
// CHECK-COUNT-2: nvvm.shfl.sync  bfly %{{.*}}, %{{.*}}, %c2_i32
// CHECK-COUNT-2: nvvm.shfl.sync  bfly %{{.*}}, %{{.*}}, %c4_i32
// CHECK-COUNT-2: nvvm.shfl.sync  bfly %{{.*}}, %{{.*}}, %c8_i32
// CHECK-NOT:     nvvm.shfl.sync
// CHECK:         scf.if
// CHECK-COUNT-2:   llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// CHECK:         nvvm.barrier0
// CHECK:         llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK-NEXT:    nvvm.barrier0
// CHECK:         blk.store %{{.*}}, %{{.*}} : !blk.ptr<f32>
func.func @row_sum(%in: !blk.ptr<f32> {blk.divisibility = 16 : i32}, %out: !blk.ptr<f32> {blk.divisibility = 16 : i32}, %stride: i32 {blk.divisibility = 16 : i32}) {
  %rows = blk.make_range 0 to 16 : tensor<16xi32>
  %cols = blk.make_range 0 to 64 : tensor<64xi32>
  %r2 = blk.expand_dims %rows axis = 1 : tensor<16xi32> -> tensor<16x1xi32>
  %c2 = blk.expand_dims %cols axis = 0 : tensor<64xi32> -> tensor<1x64xi32>
  %s = blk.splat %stride : i32 -> tensor<16x1xi32>
  %ro = arith.muli %r2, %s : tensor<16x1xi32>
  %rb = blk.broadcast %ro : tensor<16x1xi32> -> tensor<16x64xi32>
  %cb = blk.broadcast %c2 : tensor<1x64xi32> -> tensor<16x64xi32>
  %off = arith.addi %rb, %cb : tensor<16x64xi32>
  %base = blk.splat %in : !blk.ptr<f32> -> tensor<16x64x!blk.ptr<f32>>
  %p = blk.addptr %base, %off : tensor<16x64x!blk.ptr<f32>>, tensor<16x64xi32>
  %x = blk.load %p : tensor<16x64x!blk.ptr<f32>>
  %sum = blk.reduce sum %x axis = 1 : tensor<16x64xf32> -> tensor<16xf32>
  %ob = blk.splat %out : !blk.ptr<f32> -> tensor<16x!blk.ptr<f32>>
  %op = blk.addptr %ob, %rows : tensor<16x!blk.ptr<f32>>, tensor<16xi32>
  blk.store %op, %sum : tensor<16x!blk.ptr<f32>>
  return
}
