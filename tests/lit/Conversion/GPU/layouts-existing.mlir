// RUN: blockjit-opt %s --split-input-file --verify-diagnostics \
// RUN:   --blk-assign-layouts="num-warps=4" | FileCheck %s

// A block that comes with a layout keeps it when the GPU lowering implements
// it (verifyLinearLayouts): the linear #blkgpu.blocked layout of num-warps
// warps, the same for every block of its element count. Any other layout is
// reported on the op, and the pass fails.

// A 16x64 block written with the layout the pass would give it: kept, and
// the unlaid-out block of its element count gets the same vector.
// CHECK-LABEL: func.func @linear_kept
// CHECK:         blk.splat %{{.*}} : !blk.ptr<f32> -> tensor<16x64x!blk.ptr<f32>, #blkgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>>
// CHECK:         blk.load %{{.*}} : tensor<16x64x!blk.ptr<f32>, #blkgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>>
// CHECK:         blk.make_range 0 to 1024 : tensor<1024xi32, #blkgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
func.func @linear_kept(%in: !blk.ptr<f32> {blk.divisibility = 16 : i32}) {
  %b = blk.splat %in : !blk.ptr<f32> -> tensor<16x64x!blk.ptr<f32>, #blkgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>>
  %x = blk.load %b : tensor<16x64x!blk.ptr<f32>, #blkgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>>
  %r = blk.make_range 0 to 1024 : tensor<1024xi32>
  return
}

// -----

// A valid blocked layout, but not the linear one: 16x64 with 4 threads along
// a row and 8 down the rows.
func.func @not_linear(%in: !blk.ptr<f32> {blk.divisibility = 16 : i32}) {
  // expected-error @+1 {{'blk.splat' op has the block 'tensor<16x64x!blk.ptr<f32>, #blkgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>>', whose layout the GPU lowering does not implement yet: it implements the linear #blkgpu.blocked layouts that blk-assign-layouts assigns (docs/LAYOUTS.md)}}
  %b = blk.splat %in : !blk.ptr<f32> -> tensor<16x64x!blk.ptr<f32>, #blkgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>>
  return
}

// -----

// Column-major order is not linear either.
func.func @column_major(%in: !blk.ptr<f32> {blk.divisibility = 16 : i32}) {
  // expected-error @+1 {{'blk.splat' op has the block 'tensor<64x64x!blk.ptr<f32>, #blkgpu.blocked<{sizePerThread = [4, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [0, 1]}>>', whose layout the GPU lowering does not implement yet}}
  %b = blk.splat %in : !blk.ptr<f32> -> tensor<64x64x!blk.ptr<f32>, #blkgpu.blocked<{sizePerThread = [4, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [0, 1]}>>
  return
}

// -----

// Slices and shared memory are defined, not lowered yet.
func.func @slice(%x: f32) {
  // expected-error @+1 {{'blk.splat' op has the block 'tensor<16xf32, #blkgpu.slice<{dim = 1, parent = #blkgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>}>>', whose layout the GPU lowering does not implement yet}}
  %s = blk.splat %x : f32 -> tensor<16xf32, #blkgpu.slice<{dim = 1, parent = #blkgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>}>>
  return
}

// -----

func.func @shared(%x: f32) {
  // expected-error @+1 {{'blk.splat' op has the block 'tensor<64x64xf32, #blkgpu.shared<{vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0]}>>' in shared memory, which only blkgpu.async_load makes, loops carry and blkgpu.local_load reads}}
  %s = blk.splat %x : f32 -> tensor<64x64xf32, #blkgpu.shared<{vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0]}>>
  return
}

// -----

// A linear layout for 8 warps in a program of num-warps = 4.
func.func @other_warps(%x: f32) {
  // expected-error @+1 {{'blk.splat' op has the block 'tensor<1024xf32, #blkgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]}>>', laid out for 8 warps in a program of 4}}
  %s = blk.splat %x : f32 -> tensor<1024xf32, #blkgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]}>>
  return
}

// -----

// Two linear layouts of one element count with different vectors: the
// lowering would need a layout conversion between them.
func.func @two_vectors(%x: f32) {
  %a = blk.splat %x : f32 -> tensor<1024xf32, #blkgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
  // expected-error @+1 {{'blk.splat' op has the block 'tensor<16x64xf32, #blkgpu.blocked<{sizePerThread = [1, 2], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>>', laid out unlike 'tensor<1024xf32, #blkgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>': the GPU lowering needs one layout for all blocks of 1024 elements (it has no layout conversions)}}
  %b = blk.splat %x : f32 -> tensor<16x64xf32, #blkgpu.blocked<{sizePerThread = [1, 2], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>>
  return
}

// -----

// A pre-laid-out block whose element count also has unlaid-out blocks: the
// pass picks the vector from the accesses (4 for f32), unlike the given 2.
func.func @given_and_assigned(%in: !blk.ptr<f32> {blk.divisibility = 16 : i32}, %v: f32) {
  %r = blk.make_range 0 to 1024 : tensor<1024xi32>
  %b = blk.splat %in : !blk.ptr<f32> -> tensor<1024x!blk.ptr<f32>>
  %p = blk.addptr %b, %r : tensor<1024x!blk.ptr<f32>>, tensor<1024xi32>
  %x = blk.load %p : tensor<1024x!blk.ptr<f32>>
  // expected-error @+1 {{'blk.splat' op has the block 'tensor<1024xf32, #blkgpu.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>', laid out unlike 'tensor<1024xi32, #blkgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>'}}
  %y = blk.splat %v : f32 -> tensor<1024xf32, #blkgpu.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
  return
}
