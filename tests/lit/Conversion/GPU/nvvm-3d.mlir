// RUN: blockjit-opt %s --split-input-file --blk-assign-layouts="num-warps=4" | FileCheck %s --check-prefix=LAYOUT
// RUN: blockjit-opt %s --split-input-file --blk-assign-layouts="num-warps=4" --convert-blk-to-nvvm | FileCheck %s

// Blocks of rank 3 (and more) on the GPU: distributed by their row-major
// linear index like any block, in per-dimension form the vector, the 32
// lanes and the warps fill the dimensions innermost first. 2x4x8 f32 (64
// elements for 128 threads) has one element per thread: 8 lanes along the
// last dimension, 4 down the middle one, and the warps on dimension 0,
// which wraps (replicas). The reshape from 1-D moves nothing; the reduction
// along the middle axis combines in registers and shuffles, and only the 16
// sums cross threads, through shared memory.

// LAYOUT-LABEL: func.func @reduce_middle
// LAYOUT: blk.reshape %{{.*}} : tensor<64xf32, #blkgpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>> -> tensor<2x4x8xf32, #blkgpu.blocked<{sizePerThread = [1, 1, 1], threadsPerWarp = [1, 4, 8], warpsPerCTA = [4, 1, 1], order = [2, 1, 0]}>>
// LAYOUT: blk.reduce sum %{{.*}} axis = 1 : tensor<2x4x8xf32, #blkgpu.blocked<{sizePerThread = [1, 1, 1], threadsPerWarp = [1, 4, 8], warpsPerCTA = [4, 1, 1], order = [2, 1, 0]}>> -> tensor<2x8xf32, #blkgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>>

// CHECK:       llvm.mlir.global internal @__blk_smem_reduce_middle() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<64 x i8>
// CHECK-LABEL: func.func @reduce_middle
// CHECK:         %[[X:.*]] = blk.load %{{.*}} : !blk.ptr<f32>
// CHECK-NOT:     nvvm.barrier0
// The middle axis is lanes 3 and 4 (linear index bits 3-4): two butterfly
// shuffles, offsets 8 and 16.
// CHECK:         nvvm.shfl.sync  bfly %{{.*}}, %{{.*}}, %c8_i32
// CHECK:         nvvm.shfl.sync  bfly %{{.*}}, %{{.*}}, %c16_i32
// The lanes at j = 0 (tid & 24 == 0) write their sums to the result's
// slots; a barrier; each thread reads its element of the 2x8 result; a
// barrier.
// CHECK:         arith.andi %{{.*}}, %c24_i32 : i32
// CHECK:         scf.if
// CHECK:           llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// CHECK:         nvvm.barrier0
// CHECK:         llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK-NEXT:    nvvm.barrier0
// CHECK:         blk.store %{{.*}}, %{{.*}} : !blk.ptr<f32>
func.func @reduce_middle(%in: !blk.ptr<f32>, %out: !blk.ptr<f32>) {
  %r = blk.make_range 0 to 64 : tensor<64xi32>
  %p = blk.splat %in : !blk.ptr<f32> -> tensor<64x!blk.ptr<f32>>
  %a = blk.addptr %p, %r : tensor<64x!blk.ptr<f32>>, tensor<64xi32>
  %x = blk.load %a : tensor<64x!blk.ptr<f32>>
  %x3 = blk.reshape %x : tensor<64xf32> -> tensor<2x4x8xf32>
  %s = blk.reduce sum %x3 axis = 1 : tensor<2x4x8xf32> -> tensor<2x8xf32>
  %r16 = blk.make_range 0 to 16 : tensor<16xi32>
  %o = blk.reshape %r16 : tensor<16xi32> -> tensor<2x8xi32>
  %q = blk.splat %out : !blk.ptr<f32> -> tensor<2x8x!blk.ptr<f32>>
  %b = blk.addptr %q, %o : tensor<2x8x!blk.ptr<f32>>, tensor<2x8xi32>
  blk.store %b, %s : tensor<2x8x!blk.ptr<f32>>
  return
}

// -----

// 4x8x32 i32 (1024 elements, 8 per thread): a 4-element vector per chunk
// along the last dimension, 8 lanes along it and 4 down the middle one,
// warps 2 down the middle and 2 on dimension 0. A 3-D permute goes through
// shared memory (4 KiB): result (a, b, c) of 32x4x8 is source (b, c, a).
// A join of 2-D blocks and a split of the 3-D result: rank-3 blocks whose
// last dimension (2) caps the vector of their element count.

// LAYOUT-LABEL: func.func @permute_join
// LAYOUT: blk.permute %{{.*}} order = [2, 0, 1] : tensor<4x8x32xi32, #blkgpu.blocked<{sizePerThread = [1, 1, 4], threadsPerWarp = [1, 4, 8], warpsPerCTA = [2, 2, 1], order = [2, 1, 0]}>> -> tensor<32x4x8xi32, #blkgpu.blocked<{sizePerThread = [1, 1, 4], threadsPerWarp = [4, 4, 2], warpsPerCTA = [4, 1, 1], order = [2, 1, 0]}>>
// LAYOUT: blk.join %{{.*}}, %{{.*}} : tensor<4x8xf32, #blkgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>> -> tensor<4x8x2xf32, #blkgpu.blocked<{sizePerThread = [1, 1, 1], threadsPerWarp = [2, 8, 2], warpsPerCTA = [4, 1, 1], order = [2, 1, 0]}>>

// CHECK:       llvm.mlir.global internal @__blk_smem_permute_join() {{.*}} : !llvm.array<4096 x i8>
// CHECK-LABEL: func.func @permute_join
// CHECK-COUNT-8: llvm.store %{{.*}}, %{{.*}} : i32, !llvm.ptr<3>
// CHECK:         nvvm.barrier0
// CHECK-COUNT-8: llvm.load %{{.*}} : !llvm.ptr<3> -> i32
// CHECK:         nvvm.barrier0
// The join: lhs at 2i, rhs at 2i + 1, a barrier, the reads, a barrier.
// CHECK:         llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// CHECK:         llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// CHECK:         nvvm.barrier0
// CHECK:         llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK:         nvvm.barrier0
// The split: published, read at 2i and 2i + 1.
// CHECK:         nvvm.barrier0
// CHECK:         llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK:         llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK:         nvvm.barrier0
func.func @permute_join(%in: !blk.ptr<i32>, %out: !blk.ptr<i32>, %f: !blk.ptr<f32>) {
  %r = blk.make_range 0 to 1024 : tensor<1024xi32>
  %r3 = blk.reshape %r : tensor<1024xi32> -> tensor<4x8x32xi32>
  %p = blk.splat %in : !blk.ptr<i32> -> tensor<4x8x32x!blk.ptr<i32>>
  %a = blk.addptr %p, %r3 : tensor<4x8x32x!blk.ptr<i32>>, tensor<4x8x32xi32>
  %x = blk.load %a : tensor<4x8x32x!blk.ptr<i32>>
  %t = blk.permute %x order = [2, 0, 1] : tensor<4x8x32xi32> -> tensor<32x4x8xi32>
  %rt = blk.reshape %r : tensor<1024xi32> -> tensor<32x4x8xi32>
  %q = blk.splat %out : !blk.ptr<i32> -> tensor<32x4x8x!blk.ptr<i32>>
  %b = blk.addptr %q, %rt : tensor<32x4x8x!blk.ptr<i32>>, tensor<32x4x8xi32>
  blk.store %b, %t : tensor<32x4x8x!blk.ptr<i32>>
  %r32 = blk.make_range 0 to 32 : tensor<32xi32>
  %r2 = blk.reshape %r32 : tensor<32xi32> -> tensor<4x8xi32>
  %fp = blk.splat %f : !blk.ptr<f32> -> tensor<4x8x!blk.ptr<f32>>
  %fa = blk.addptr %fp, %r2 : tensor<4x8x!blk.ptr<f32>>, tensor<4x8xi32>
  %y = blk.load %fa : tensor<4x8x!blk.ptr<f32>>
  %j = blk.join %y, %y : tensor<4x8xf32> -> tensor<4x8x2xf32>
  %lo, %hi = blk.split %j : tensor<4x8x2xf32> -> tensor<4x8xf32>
  %sum = arith.addf %lo, %hi : tensor<4x8xf32>
  blk.store %fa, %sum : tensor<4x8x!blk.ptr<f32>>
  return
}

// -----

// 2x4x8 i32 with 4 warps (one element per thread, replicas): a scan along
// the middle axis goes through shared memory, its owner writing each
// element (replicas do not), thread t walking line t (i = t >> 3, k = t & 7)
// at stride 8; an arg_reduce along the last axis loops over the 8 elements
// of each (i, j); an atomic through the 3-D pointer block is executed by the
// element's owner only.

// LAYOUT-LABEL: func.func @scan_argmax_atomic
// LAYOUT: blk.scan %{{.*}} axis = 1 : tensor<2x4x8xi32, #blkgpu.blocked<{sizePerThread = [1, 1, 1], threadsPerWarp = [1, 4, 8], warpsPerCTA = [4, 1, 1], order = [2, 1, 0]}>>
// LAYOUT: blk.arg_reduce max %{{.*}} axis = 2 : tensor<2x4x8xi32, #blkgpu.blocked<{{.*}}>> -> tensor<2x4xi32, #blkgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>>

// CHECK-LABEL: func.func @scan_argmax_atomic
// The scan: owners publish, a barrier, the line loop, a barrier, the reads,
// a barrier.
// CHECK:         scf.if
// CHECK:           llvm.store %{{.*}}, %{{.*}} : i32, !llvm.ptr<3>
// CHECK:         nvvm.barrier0
// CHECK:         scf.for %{{.*}} = %{{.*}} to %c16_i32 step %c128_i32
// CHECK:           scf.for %{{.*}} = %c1_i32{{.*}} to %c4_i32 step
// CHECK:             arith.addi
// CHECK:         nvvm.barrier0
// CHECK:         llvm.load %{{.*}} : !llvm.ptr<3> -> i32
// CHECK:         nvvm.barrier0
// The arg_reduce: published, a loop over the last axis, a barrier.
// CHECK:         nvvm.barrier0
// CHECK:         scf.for %{{.*}} = %c0 to %c8 step %c1
// CHECK:         nvvm.barrier0
// The atomic: by the owner of the element only.
// CHECK:         scf.if
// CHECK:           llvm.atomicrmw add
func.func @scan_argmax_atomic(%in: !blk.ptr<i32>, %out: !blk.ptr<i32>) {
  %r = blk.make_range 0 to 64 : tensor<64xi32>
  %r3 = blk.reshape %r : tensor<64xi32> -> tensor<2x4x8xi32>
  %p = blk.splat %in : !blk.ptr<i32> -> tensor<2x4x8x!blk.ptr<i32>>
  %a = blk.addptr %p, %r3 : tensor<2x4x8x!blk.ptr<i32>>, tensor<2x4x8xi32>
  %x = blk.load %a : tensor<2x4x8x!blk.ptr<i32>>
  %s = blk.scan %x axis = 1 : tensor<2x4x8xi32> {
  ^bb0(%l: i32, %rr: i32):
    %c = arith.addi %l, %rr : i32
    blk.scan_return %c : i32
  }
  %i = blk.arg_reduce max %s axis = 2 : tensor<2x4x8xi32> -> tensor<2x4xi32>
  %r8 = blk.make_range 0 to 8 : tensor<8xi32>
  %o = blk.reshape %r8 : tensor<8xi32> -> tensor<2x4xi32>
  %q = blk.splat %out : !blk.ptr<i32> -> tensor<2x4x!blk.ptr<i32>>
  %b = blk.addptr %q, %o : tensor<2x4x!blk.ptr<i32>>, tensor<2x4xi32>
  blk.store %b, %i : tensor<2x4x!blk.ptr<i32>>
  %old = blk.atomic_rmw add %a, %s : tensor<2x4x8x!blk.ptr<i32>>, tensor<2x4x8xi32> -> tensor<2x4x8xi32>
  return
}
