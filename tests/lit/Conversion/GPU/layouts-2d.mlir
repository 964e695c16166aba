// RUN: blockjit-opt %s --split-input-file --blk-assign-layouts="num-warps=8" | FileCheck %s

// A 2-D block gets its linear distribution (row-major linear index, one
// vector per element count) in per-dimension form: the vector, then the 32
// lanes, then the warps fill the row first and spill onto the rows; what the
// rows cannot take wraps (replicas). docs/LAYOUTS.md, linearBlockedLayout.

// Rows at least vector * threads long (1024 >= 4 * 256): everything along
// the row.
// CHECK-LABEL: func.func @long_rows
// CHECK:         blk.load %{{.*}} : tensor<4x1024x!blk.ptr<f32>, #blkgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [1, 8], order = [1, 0]}>>
func.func @long_rows(%in: !blk.ptr<f32> {blk.divisibility = 16 : i32}) {
  %b = blk.splat %in : !blk.ptr<f32> -> tensor<4x1024x!blk.ptr<f32>>
  %x = blk.load %b : tensor<4x1024x!blk.ptr<f32>>
  return
}

// -----

// Rows of 32 f16: 4 elements per thread (1024 / 256), 8 lanes per row, the
// other lanes and every warp down the rows.
// CHECK-LABEL: func.func @short_rows
// CHECK:         blk.load %{{.*}} : tensor<32x32x!blk.ptr<f16>, #blkgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]}>>
func.func @short_rows(%in: !blk.ptr<f16> {blk.divisibility = 16 : i32}) {
  %b = blk.splat %in : !blk.ptr<f16> -> tensor<32x32x!blk.ptr<f16>>
  %x = blk.load %b : tensor<32x32x!blk.ptr<f16>>
  return
}

// -----

// 128 elements for 256 threads: 1 each, 2 lanes per row of 2, 16 down; the
// 8 warps make a 128-row tile over 64 rows, so half of them wrap.
// CHECK-LABEL: func.func @fewer_elements_than_threads
// CHECK:         blk.load %{{.*}} : tensor<64x2x!blk.ptr<f16>, #blkgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [16, 2], warpsPerCTA = [8, 1], order = [1, 0]}>>
func.func @fewer_elements_than_threads(%in: !blk.ptr<f16> {blk.divisibility = 16 : i32}) {
  %b = blk.splat %in : !blk.ptr<f16> -> tensor<64x2x!blk.ptr<f16>>
  %x = blk.load %b : tensor<64x2x!blk.ptr<f16>>
  return
}

// -----

// One vector per element count: the 8x128 block takes the vector of the
// 1024-element f32 load (4), capped by the shortest row of that count
// (a 256x4 block), and each shape gets its own per-dimension form.
// CHECK-LABEL: func.func @shared_vector
// CHECK:         blk.load %{{.*}} : tensor<1024x!blk.ptr<f32>, #blkgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]}>>
// CHECK:         blk.splat %{{.*}} : f32 -> tensor<8x128xf32, #blkgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [8, 1], order = [1, 0]}>>
// CHECK:         blk.splat %{{.*}} : f32 -> tensor<256x4xf32, #blkgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [32, 1], warpsPerCTA = [8, 1], order = [1, 0]}>>
func.func @shared_vector(%in: !blk.ptr<f32> {blk.divisibility = 16 : i32}, %v: f32) {
  %r = blk.make_range 0 to 1024 : tensor<1024xi32>
  %b = blk.splat %in : !blk.ptr<f32> -> tensor<1024x!blk.ptr<f32>>
  %p = blk.addptr %b, %r : tensor<1024x!blk.ptr<f32>>, tensor<1024xi32>
  %x = blk.load %p : tensor<1024x!blk.ptr<f32>>
  %s = blk.splat %v : f32 -> tensor<8x128xf32>
  %t = blk.splat %v : f32 -> tensor<256x4xf32>
  return
}
