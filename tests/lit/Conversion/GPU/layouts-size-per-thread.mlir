// RUN: blockjit-opt %s --split-input-file --blk-assign-layouts="num-warps=4" | FileCheck %s
// RUN: blockjit-opt %s --split-input-file --blk-assign-layouts="num-warps=8" | FileCheck %s --check-prefix=W8

// sizePerThread is 16 bytes of the narrowest element type loaded or stored at
// that block size, capped at (block size / threads) so the block still covers
// every thread (at least 1). With 4 warps (128 threads): f32 -> 4, f16 -> 8;
// a 128-element block has exactly one element per thread and a 64-element
// block fewer elements than threads (sizePerThread 1, replicated). With 8
// warps (256 threads) a 1024-element f32 block keeps 4, a 512-element one
// gets only 2.

// CHECK-LABEL: func.func @f32_1024
// CHECK:         blk.make_range 0 to 1024 : tensor<1024xi32, #blkgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
// CHECK:         blk.load %{{.*}} : tensor<1024x!blk.ptr<f32>, #blkgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
// CHECK:         blk.store %{{.*}} : tensor<1024x!blk.ptr<f32>, #blkgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
// W8-LABEL:    func.func @f32_1024
// W8:            blk.make_range 0 to 1024 : tensor<1024xi32, #blkgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]}>>
func.func @f32_1024(%in: !blk.ptr<f32> {blk.divisibility = 16 : i32}, %out: !blk.ptr<f32> {blk.divisibility = 16 : i32}) {
  %r = blk.make_range 0 to 1024 : tensor<1024xi32>
  %b = blk.splat %in : !blk.ptr<f32> -> tensor<1024x!blk.ptr<f32>>
  %p = blk.addptr %b, %r : tensor<1024x!blk.ptr<f32>>, tensor<1024xi32>
  %x = blk.load %p : tensor<1024x!blk.ptr<f32>>
  %ob = blk.splat %out : !blk.ptr<f32> -> tensor<1024x!blk.ptr<f32>>
  %op = blk.addptr %ob, %r : tensor<1024x!blk.ptr<f32>>, tensor<1024xi32>
  blk.store %op, %x : tensor<1024x!blk.ptr<f32>>
  return
}

// -----

// CHECK-LABEL: func.func @f16_1024
// CHECK:         blk.load %{{.*}} : tensor<1024x!blk.ptr<f16>, #blkgpu.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
// CHECK:         arith.addf %{{.*}} : tensor<1024xf16, #blkgpu.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
// W8-LABEL:    func.func @f16_1024
// W8:            blk.load %{{.*}} : tensor<1024x!blk.ptr<f16>, #blkgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]}>>
func.func @f16_1024(%in: !blk.ptr<f16> {blk.divisibility = 16 : i32}) {
  %r = blk.make_range 0 to 1024 : tensor<1024xi32>
  %b = blk.splat %in : !blk.ptr<f16> -> tensor<1024x!blk.ptr<f16>>
  %p = blk.addptr %b, %r : tensor<1024x!blk.ptr<f16>>, tensor<1024xi32>
  %x = blk.load %p : tensor<1024x!blk.ptr<f16>>
  %y = arith.addf %x, %x : tensor<1024xf16>
  blk.store %p, %y : tensor<1024x!blk.ptr<f16>>
  return
}

// -----

// The narrowest access decides for every block of that size: an f16 load
// and an f32 store of 1024 elements both get 8 (16 bytes of f16), the f32
// values included.
// CHECK-LABEL: func.func @mixed_f16_load_f32_store
// CHECK:         blk.load %{{.*}} : tensor<1024x!blk.ptr<f16>, #blkgpu.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
// CHECK:         arith.extf %{{.*}} : tensor<1024xf16, #blkgpu.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>> to tensor<1024xf32, #blkgpu.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
// CHECK:         blk.store %{{.*}} : tensor<1024x!blk.ptr<f32>, #blkgpu.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
func.func @mixed_f16_load_f32_store(%in: !blk.ptr<f16> {blk.divisibility = 16 : i32}, %out: !blk.ptr<f32> {blk.divisibility = 16 : i32}) {
  %r = blk.make_range 0 to 1024 : tensor<1024xi32>
  %b = blk.splat %in : !blk.ptr<f16> -> tensor<1024x!blk.ptr<f16>>
  %p = blk.addptr %b, %r : tensor<1024x!blk.ptr<f16>>, tensor<1024xi32>
  %x = blk.load %p : tensor<1024x!blk.ptr<f16>>
  %y = arith.extf %x : tensor<1024xf16> to tensor<1024xf32>
  %ob = blk.splat %out : !blk.ptr<f32> -> tensor<1024x!blk.ptr<f32>>
  %op = blk.addptr %ob, %r : tensor<1024x!blk.ptr<f32>>, tensor<1024xi32>
  blk.store %op, %y : tensor<1024x!blk.ptr<f32>>
  return
}

// -----

// 16 bytes is the cap: a 4096-element f32 block still gets 4, i8 gets 16.
// CHECK-LABEL: func.func @cap_16_bytes
// CHECK:         blk.load %{{.*}} : tensor<4096x!blk.ptr<f32>, #blkgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
// CHECK-LABEL: func.func @i8_8192
// CHECK:         blk.load %{{.*}} : tensor<8192x!blk.ptr<i8>, #blkgpu.blocked<{sizePerThread = [16], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
func.func @cap_16_bytes(%in: !blk.ptr<f32> {blk.divisibility = 16 : i32}) {
  %r = blk.make_range 0 to 4096 : tensor<4096xi32>
  %b = blk.splat %in : !blk.ptr<f32> -> tensor<4096x!blk.ptr<f32>>
  %p = blk.addptr %b, %r : tensor<4096x!blk.ptr<f32>>, tensor<4096xi32>
  %x = blk.load %p : tensor<4096x!blk.ptr<f32>>
  blk.store %p, %x : tensor<4096x!blk.ptr<f32>>
  return
}
func.func @i8_8192(%in: !blk.ptr<i8> {blk.divisibility = 16 : i32}) {
  %r = blk.make_range 0 to 8192 : tensor<8192xi32>
  %b = blk.splat %in : !blk.ptr<i8> -> tensor<8192x!blk.ptr<i8>>
  %p = blk.addptr %b, %r : tensor<8192x!blk.ptr<i8>>, tensor<8192xi32>
  %x = blk.load %p : tensor<8192x!blk.ptr<i8>>
  blk.store %p, %x : tensor<8192x!blk.ptr<i8>>
  return
}

// -----

// Small blocks: 512 f32 elements over 4 warps -> 4 but over 8 warps -> 2;
// 128 over 4 warps -> 1; 64 over 4 warps -> 1 (fewer elements than threads:
// the block is replicated).
// CHECK-LABEL: func.func @small_blocks
// CHECK:         blk.load %{{.*}} : tensor<512x!blk.ptr<f32>, #blkgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
// CHECK:         blk.load %{{.*}} : tensor<128x!blk.ptr<f32>, #blkgpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
// CHECK:         blk.load %{{.*}} : tensor<64x!blk.ptr<f32>, #blkgpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
// W8-LABEL:    func.func @small_blocks
// W8:            blk.load %{{.*}} : tensor<512x!blk.ptr<f32>, #blkgpu.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]}>>
// W8:            blk.load %{{.*}} : tensor<128x!blk.ptr<f32>, #blkgpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]}>>
// W8:            blk.load %{{.*}} : tensor<64x!blk.ptr<f32>, #blkgpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]}>>
func.func @small_blocks(%in: !blk.ptr<f32> {blk.divisibility = 16 : i32}) {
  %r512 = blk.make_range 0 to 512 : tensor<512xi32>
  %b512 = blk.splat %in : !blk.ptr<f32> -> tensor<512x!blk.ptr<f32>>
  %p512 = blk.addptr %b512, %r512 : tensor<512x!blk.ptr<f32>>, tensor<512xi32>
  %x512 = blk.load %p512 : tensor<512x!blk.ptr<f32>>
  %r128 = blk.make_range 0 to 128 : tensor<128xi32>
  %b128 = blk.splat %in : !blk.ptr<f32> -> tensor<128x!blk.ptr<f32>>
  %p128 = blk.addptr %b128, %r128 : tensor<128x!blk.ptr<f32>>, tensor<128xi32>
  %x128 = blk.load %p128 : tensor<128x!blk.ptr<f32>>
  %r64 = blk.make_range 0 to 64 : tensor<64xi32>
  %b64 = blk.splat %in : !blk.ptr<f32> -> tensor<64x!blk.ptr<f32>>
  %p64 = blk.addptr %b64, %r64 : tensor<64x!blk.ptr<f32>>, tensor<64xi32>
  %x64 = blk.load %p64 : tensor<64x!blk.ptr<f32>>
  return
}

// -----

// A block size with no memory access at all is sized as 4-byte elements.
// CHECK-LABEL: func.func @no_memory_access
// CHECK:         blk.make_range 0 to 2048 : tensor<2048xi32, #blkgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
// CHECK:         blk.reduce sum %{{.*}} : tensor<2048xi32, #blkgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>> -> i32
func.func @no_memory_access(%out: !blk.ptr<i32> {blk.divisibility = 16 : i32}) {
  %r = blk.make_range 0 to 2048 : tensor<2048xi32>
  %s = blk.reduce sum %r axis = 0 : tensor<2048xi32> -> i32
  blk.store %out, %s : !blk.ptr<i32>
  return
}
