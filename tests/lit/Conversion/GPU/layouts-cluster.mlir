// RUN: blockjit-opt %s --split-input-file --blk-assign-layouts="num-warps=4 num-ctas=4" | FileCheck %s
// RUN: blockjit-opt %s --split-input-file --blk-assign-layouts="num-warps=4 num-ctas=16" | FileCheck %s --check-prefix=C16
// RUN: blockjit-opt %s --split-input-file --blk-assign-layouts="num-warps=4" | FileCheck %s --check-prefix=ONE

// blk-assign-layouts with num-ctas: a program runs on a cluster of that many
// CTAs. A block large enough to give every CTA a whole tile (vector x 32 x
// num_warps elements) is split over them, the CTAs taking turns tile by
// tile: its #blkgpu.blocked gets CTAsPerCluster = CTASplitNum = [num-ctas]
// (for a 2-D block, on the dimension right after the tile's). Smaller
// blocks are held whole by every CTA (CTASplitNum = [1]). The module
// records blkgpu.num_ctas; without num-ctas nothing changes.

// CHECK:       module attributes {blkgpu.num_ctas = 4 : i32, blkgpu.num_warps = 4 : i32}
// CHECK-LABEL: func.func @row
// 8192 f32 / 4 CTAs = 2048 per CTA >= the 512-element tile: split.
// CHECK:         blk.make_range 0 to 8192 : tensor<8192xi32, #blkgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0], CTAsPerCluster = [4], CTASplitNum = [4], CTAOrder = [0]}>>
// CHECK:         blk.load {{.*}} : tensor<8192x!blk.ptr<f32>, #blkgpu.blocked<{{.*}}CTASplitNum = [4]
// CHECK:         blk.reduce max {{.*}} CTASplitNum = [4]
// 16 elements: every CTA holds them all.
// CHECK:         blk.make_range 0 to 16 : tensor<16xi32, #blkgpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0], CTAsPerCluster = [4], CTASplitNum = [1], CTAOrder = [0]}>>

// 16 CTAs: 8192 / 16 = 512, exactly one tile each.
// C16:         module attributes {blkgpu.num_ctas = 16 : i32, blkgpu.num_warps = 4 : i32}
// C16:         blk.make_range 0 to 8192 : tensor<8192xi32, #blkgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0], CTAsPerCluster = [16], CTASplitNum = [16], CTAOrder = [0]}>>

// ONE:         module attributes {blkgpu.num_warps = 4 : i32}
// ONE-NOT:     CTAsPerCluster
func.func @row(%out: !blk.ptr<f32> {blk.divisibility = 16 : i32}, %in: !blk.ptr<f32> {blk.divisibility = 16 : i32}, %small: !blk.ptr<i32> {blk.divisibility = 16 : i32}) {
  %r = blk.make_range 0 to 8192 : tensor<8192xi32>
  %p = blk.splat %in : !blk.ptr<f32> -> tensor<8192x!blk.ptr<f32>>
  %ptrs = blk.addptr %p, %r : tensor<8192x!blk.ptr<f32>>, tensor<8192xi32>
  %x = blk.load %ptrs : tensor<8192x!blk.ptr<f32>>
  %m = blk.reduce max %x axis = 0 : tensor<8192xf32> -> f32
  %ms = blk.splat %m : f32 -> tensor<8192xf32>
  %d = arith.subf %x, %ms : tensor<8192xf32>
  %q = blk.splat %out : !blk.ptr<f32> -> tensor<8192x!blk.ptr<f32>>
  %qs = blk.addptr %q, %r : tensor<8192x!blk.ptr<f32>>, tensor<8192xi32>
  blk.store %qs, %d : tensor<8192x!blk.ptr<f32>>
  %s = blk.make_range 0 to 16 : tensor<16xi32>
  %sp = blk.splat %small : !blk.ptr<i32> -> tensor<16x!blk.ptr<i32>>
  %sps = blk.addptr %sp, %s : tensor<16x!blk.ptr<i32>>, tensor<16xi32>
  blk.store %sps, %s : tensor<16x!blk.ptr<i32>>
  return
}

// -----

// No block gives each CTA a tile (1024 f32 / 4 = 256 < 512): one CTA, and
// the module says why.
// CHECK:       module attributes {blkgpu.cluster_fallback = "no block is large enough to give each of the 4 CTAs a tile", blkgpu.num_warps = 4 : i32}
// CHECK-NOT:   CTAsPerCluster
func.func @short(%in: !blk.ptr<f32> {blk.divisibility = 16 : i32}) {
  %r = blk.make_range 0 to 1024 : tensor<1024xi32>
  %p = blk.splat %in : !blk.ptr<f32> -> tensor<1024x!blk.ptr<f32>>
  %ptrs = blk.addptr %p, %r : tensor<1024x!blk.ptr<f32>>, tensor<1024xi32>
  %x = blk.load %ptrs : tensor<1024x!blk.ptr<f32>>
  blk.store %ptrs, %x : tensor<1024x!blk.ptr<f32>>
  return
}

// -----

// A split block reaching an op the cluster lowering lacks (a scan): the
// program runs in one CTA.
// CHECK:       module attributes {blkgpu.cluster_fallback = "'blk.scan' is not implemented on blocks split over a cluster", blkgpu.num_warps = 4 : i32}
// CHECK-NOT:   CTAsPerCluster
func.func @scan(%in: !blk.ptr<f32> {blk.divisibility = 16 : i32}) {
  %r = blk.make_range 0 to 8192 : tensor<8192xi32>
  %p = blk.splat %in : !blk.ptr<f32> -> tensor<8192x!blk.ptr<f32>>
  %ptrs = blk.addptr %p, %r : tensor<8192x!blk.ptr<f32>>, tensor<8192xi32>
  %x = blk.load %ptrs : tensor<8192x!blk.ptr<f32>>
  %c = blk.scan %x axis = 0 : tensor<8192xf32> {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    blk.scan_return %s : f32
  }
  blk.store %ptrs, %c : tensor<8192x!blk.ptr<f32>>
  return
}

// -----

// A 2-D block of the same size is split like the 1-D one: the 512-element
// tile spans dimension 1 (4 x 32 x 4), so the 4 CTAs take turns along
// dimension 1 (CTASplitNum = [1, 4]), and a reshape keeps each element in
// its CTA.
// CHECK-LABEL: func.func @rows
// CHECK:         blk.reshape {{.*}} -> tensor<4x2048xf32, #blkgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0], CTAsPerCluster = [1, 4], CTASplitNum = [1, 4], CTAOrder = [1, 0]}>>
func.func @rows(%in: !blk.ptr<f32> {blk.divisibility = 16 : i32}) {
  %r = blk.make_range 0 to 8192 : tensor<8192xi32>
  %p = blk.splat %in : !blk.ptr<f32> -> tensor<8192x!blk.ptr<f32>>
  %ptrs = blk.addptr %p, %r : tensor<8192x!blk.ptr<f32>>, tensor<8192xi32>
  %x = blk.load %ptrs : tensor<8192x!blk.ptr<f32>>
  %x2 = blk.reshape %x : tensor<8192xf32> -> tensor<4x2048xf32>
  %y = blk.reshape %x2 : tensor<4x2048xf32> -> tensor<8192xf32>
  blk.store %ptrs, %y : tensor<8192x!blk.ptr<f32>>
  return
}

// -----

// A tile is vector x 32 x num_warps elements with the vector the accesses
// allow: a row of unknown alignment gets vector 1, so its tile is 128
// elements and 1024 f32 over 4 CTAs (256 each) is split, where an aligned
// 1024 (tile 512) is not.
// CHECK-LABEL: func.func @unaligned_small_row
// CHECK:         blk.load {{.*}} : tensor<1024x!blk.ptr<f32>, #blkgpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0], CTAsPerCluster = [4], CTASplitNum = [4], CTAOrder = [0]}>>
func.func @unaligned_small_row(%in: !blk.ptr<f32>, %out: !blk.ptr<f32> {blk.divisibility = 16 : i32}) {
  %r = blk.make_range 0 to 1024 : tensor<1024xi32>
  %p = blk.splat %in : !blk.ptr<f32> -> tensor<1024x!blk.ptr<f32>>
  %ptrs = blk.addptr %p, %r : tensor<1024x!blk.ptr<f32>>, tensor<1024xi32>
  %x = blk.load %ptrs : tensor<1024x!blk.ptr<f32>>
  %m = blk.reduce max %x axis = 0 : tensor<1024xf32> -> f32
  blk.store %out, %m : !blk.ptr<f32>
  return
}

// -----

// The aligned row gives no CTA a tile: the program falls back to one CTA.
// CHECK:       module attributes {blkgpu.cluster_fallback = "no block is large enough to give each of the 4 CTAs a tile", blkgpu.num_warps = 4 : i32}
// CHECK-LABEL: func.func @aligned_small_row
// CHECK:         blk.load {{.*}} : tensor<1024x!blk.ptr<f32>, #blkgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
func.func @aligned_small_row(%in: !blk.ptr<f32> {blk.divisibility = 16 : i32}, %out: !blk.ptr<f32> {blk.divisibility = 16 : i32}) {
  %r = blk.make_range 0 to 1024 : tensor<1024xi32>
  %p = blk.splat %in : !blk.ptr<f32> -> tensor<1024x!blk.ptr<f32>>
  %ptrs = blk.addptr %p, %r : tensor<1024x!blk.ptr<f32>>, tensor<1024xi32>
  %x = blk.load %ptrs : tensor<1024x!blk.ptr<f32>>
  %m = blk.reduce max %x axis = 0 : tensor<1024xf32> -> f32
  blk.store %out, %m : !blk.ptr<f32>
  return
}

// -----

// all_reduce down the columns of a split 2-D block stays on the cluster:
// each CTA's 2 writers send their 4 column partials each, packed in one
// 16-byte run (2 slots), to every CTA (2 halves x 4 CTAs x 2 writers x 2
// slots x 8 bytes = 256 bytes of cluster buffer). The 512-element tile
// spans 64 rows, so the CTAs take turns along dimension 0.
// CHECK:       module attributes {blkgpu.num_ctas = 4 : i32, blkgpu.num_warps = 4 : i32}
// CHECK-LABEL: func.func @columns
// CHECK:         blkgpu.all_reduce max {{.*}} : tensor<2048x8xf32, #blkgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [16, 2], warpsPerCTA = [4, 1], order = [1, 0], CTAsPerCluster = [4, 1], CTASplitNum = [4, 1], CTAOrder = [1, 0]}>>
func.func @columns(%in: !blk.ptr<f32> {blk.divisibility = 16 : i32}) {
  %r = blk.make_range 0 to 16384 : tensor<16384xi32>
  %r2 = blk.reshape %r : tensor<16384xi32> -> tensor<2048x8xi32>
  %p = blk.splat %in : !blk.ptr<f32> -> tensor<2048x8x!blk.ptr<f32>>
  %ptrs = blk.addptr %p, %r2 : tensor<2048x8x!blk.ptr<f32>>, tensor<2048x8xi32>
  %x = blk.load %ptrs : tensor<2048x8x!blk.ptr<f32>>
  %m = blkgpu.all_reduce max %x axis = 0 : tensor<2048x8xf32>
  blk.store %ptrs, %m : tensor<2048x8x!blk.ptr<f32>>
  return
}

// -----

// 64x1024 f16 (vector 8): each of the 128 threads would send its 8 column
// partials (f32) in two 16-byte runs (4 slots) to each of 4 CTAs: 2 x 4
// CTAs x 128 writers x 4 slots x 8 bytes = 32 KB of cluster buffer, more
// than the 16 KB an all_reduce may take: one CTA.
// CHECK:       module attributes {blkgpu.cluster_fallback = "'blkgpu.all_reduce' is not implemented on blocks split over a cluster", blkgpu.num_warps = 4 : i32}
// CHECK-LABEL: func.func @wide_columns
func.func @wide_columns(%in: !blk.ptr<f16> {blk.divisibility = 16 : i32}) {
  %r = blk.make_range 0 to 65536 : tensor<65536xi32>
  %r2 = blk.reshape %r : tensor<65536xi32> -> tensor<64x1024xi32>
  %p = blk.splat %in : !blk.ptr<f16> -> tensor<64x1024x!blk.ptr<f16>>
  %ptrs = blk.addptr %p, %r2 : tensor<64x1024x!blk.ptr<f16>>, tensor<64x1024xi32>
  %x = blk.load %ptrs : tensor<64x1024x!blk.ptr<f16>>
  %m = blkgpu.all_reduce max %x axis = 0 : tensor<64x1024xf16>
  blk.store %ptrs, %m : tensor<64x1024x!blk.ptr<f16>>
  return
}

// -----

// 512 f32 columns (vector 4): each thread's 4 column partials pack into one
// 16-byte run (2 slots), 2 x 4 CTAs x 128 writers x 2 slots x 8 bytes =
// 16384 bytes, just the 16 KB an all_reduce may take: it stays on the
// cluster (it took 32 KB while every partial had its own 8-byte slot).
// CHECK:       module attributes {blkgpu.num_ctas = 4 : i32, blkgpu.num_warps = 4 : i32}
// CHECK-LABEL: func.func @wide_f32_columns
// CHECK:         blkgpu.all_reduce max {{.*}} : tensor<64x512xf32, #blkgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0], CTAsPerCluster = [4, 1], CTASplitNum = [4, 1], CTAOrder = [1, 0]}>>
func.func @wide_f32_columns(%in: !blk.ptr<f32> {blk.divisibility = 16 : i32}) {
  %r = blk.make_range 0 to 32768 : tensor<32768xi32>
  %r2 = blk.reshape %r : tensor<32768xi32> -> tensor<64x512xi32>
  %p = blk.splat %in : !blk.ptr<f32> -> tensor<64x512x!blk.ptr<f32>>
  %ptrs = blk.addptr %p, %r2 : tensor<64x512x!blk.ptr<f32>>, tensor<64x512xi32>
  %x = blk.load %ptrs : tensor<64x512x!blk.ptr<f32>>
  %m = blkgpu.all_reduce max %x axis = 0 : tensor<64x512xf32>
  blk.store %ptrs, %m : tensor<64x512x!blk.ptr<f32>>
  return
}

// -----

// f64 partials do not cross a cluster: one CTA.
// CHECK:       module attributes {blkgpu.cluster_fallback = "'blkgpu.all_reduce' is not implemented on blocks split over a cluster", blkgpu.num_warps = 4 : i32}
// CHECK-LABEL: func.func @f64_columns
func.func @f64_columns(%in: !blk.ptr<f64> {blk.divisibility = 16 : i32}) {
  %r = blk.make_range 0 to 16384 : tensor<16384xi32>
  %r2 = blk.reshape %r : tensor<16384xi32> -> tensor<2048x8xi32>
  %p = blk.splat %in : !blk.ptr<f64> -> tensor<2048x8x!blk.ptr<f64>>
  %ptrs = blk.addptr %p, %r2 : tensor<2048x8x!blk.ptr<f64>>, tensor<2048x8xi32>
  %x = blk.load %ptrs : tensor<2048x8x!blk.ptr<f64>>
  %m = blkgpu.all_reduce sum %x axis = 0 : tensor<2048x8xf64>
  blk.store %ptrs, %m : tensor<2048x8x!blk.ptr<f64>>
  return
}

// -----

// A broadcast onto a split block from a block every CTA holds whole (a
// loaded [1, 8] row) stays on the cluster.
// CHECK:       module attributes {blkgpu.num_ctas = 4 : i32, blkgpu.num_warps = 4 : i32}
// CHECK-LABEL: func.func @row_over_columns
// CHECK:         blk.broadcast {{.*}} -> tensor<2048x8xf32, #blkgpu.blocked<{{.*}}CTASplitNum = [4, 1]
func.func @row_over_columns(%in: !blk.ptr<f32> {blk.divisibility = 16 : i32}) {
  %r = blk.make_range 0 to 16384 : tensor<16384xi32>
  %r2 = blk.reshape %r : tensor<16384xi32> -> tensor<2048x8xi32>
  %p = blk.splat %in : !blk.ptr<f32> -> tensor<2048x8x!blk.ptr<f32>>
  %ptrs = blk.addptr %p, %r2 : tensor<2048x8x!blk.ptr<f32>>, tensor<2048x8xi32>
  %x = blk.load %ptrs : tensor<2048x8x!blk.ptr<f32>>
  %c = blk.make_range 0 to 8 : tensor<8xi32>
  %c2 = blk.expand_dims %c axis = 0 : tensor<8xi32> -> tensor<1x8xi32>
  %q = blk.splat %in : !blk.ptr<f32> -> tensor<1x8x!blk.ptr<f32>>
  %qs = blk.addptr %q, %c2 : tensor<1x8x!blk.ptr<f32>>, tensor<1x8xi32>
  %w = blk.load %qs : tensor<1x8x!blk.ptr<f32>>
  %wb = blk.broadcast %w : tensor<1x8xf32> -> tensor<2048x8xf32>
  %y = arith.mulf %x, %wb : tensor<2048x8xf32>
  blk.store %ptrs, %y : tensor<2048x8x!blk.ptr<f32>>
  return
}

// -----

// A broadcast from a split block that is not a range would need other CTAs'
// elements: one CTA.
// CHECK:       module attributes {blkgpu.cluster_fallback = "'blk.broadcast' is not implemented on blocks split over a cluster", blkgpu.num_warps = 4 : i32}
// CHECK-LABEL: func.func @split_source
func.func @split_source(%in: !blk.ptr<f32> {blk.divisibility = 16 : i32}) {
  %r = blk.make_range 0 to 2048 : tensor<2048xi32>
  %p = blk.splat %in : !blk.ptr<f32> -> tensor<2048x!blk.ptr<f32>>
  %ptrs = blk.addptr %p, %r : tensor<2048x!blk.ptr<f32>>, tensor<2048xi32>
  %x = blk.load %ptrs : tensor<2048x!blk.ptr<f32>>
  %x2 = blk.expand_dims %x axis = 1 : tensor<2048xf32> -> tensor<2048x1xf32>
  %xb = blk.broadcast %x2 : tensor<2048x1xf32> -> tensor<2048x8xf32>
  %q = blk.splat %in : !blk.ptr<f32> -> tensor<2048x8x!blk.ptr<f32>>
  blk.store %q, %xb : tensor<2048x8x!blk.ptr<f32>>
  return
}
