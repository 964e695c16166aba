// RUN: blockjit-opt %s --split-input-file --blk-assign-layouts="num-warps=4" | FileCheck %s
// RUN: blockjit-opt %s --split-input-file --blk-assign-layouts="num-warps=4" --convert-blk-to-nvvm | FileCheck %s --check-prefix=NVVM

// A contiguous access that cannot move 16 bytes at once narrows the chunk of
// its block size to what it can move (Triton's coalescing): a row of odd
// length starts at any element, so each thread gets 1 element and a warp's
// scalar loads and stores fall on 32 consecutive elements instead of 16
// bytes apart. Row starts known to 4 bytes keep pairs of bf16.

// CHECK-LABEL: func.func @bf16_odd_stride
// CHECK:         blk.load %{{.*}} : tensor<8192x!blk.ptr<bf16>, #blkgpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
// CHECK:         blk.store %{{.*}} : tensor<8192x!blk.ptr<bf16>, #blkgpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
// NVVM-LABEL:  func.func @bf16_odd_stride
// NVVM-NOT:      vector<
// NVVM:          blk.load %{{.*}} : !blk.ptr<bf16>
// NVVM-NOT:      vector<
// NVVM:          return
func.func @bf16_odd_stride(%in: !blk.ptr<bf16> {blk.divisibility = 16 : i32},
                           %out: !blk.ptr<bf16> {blk.divisibility = 16 : i32},
                           %stride: i32, %n: i32) {
  %pid = blk.program_id 0 : i32
  %start = arith.muli %pid, %stride : i32
  %r = blk.make_range 0 to 8192 : tensor<8192xi32>
  %nb = blk.splat %n : i32 -> tensor<8192xi32>
  %m = arith.cmpi slt, %r, %nb : tensor<8192xi32>
  %row = blk.addptr %in, %start : !blk.ptr<bf16>, i32
  %b = blk.splat %row : !blk.ptr<bf16> -> tensor<8192x!blk.ptr<bf16>>
  %p = blk.addptr %b, %r : tensor<8192x!blk.ptr<bf16>>, tensor<8192xi32>
  %x = blk.load %p, %m : tensor<8192x!blk.ptr<bf16>>
  %orow = blk.addptr %out, %start : !blk.ptr<bf16>, i32
  %ob = blk.splat %orow : !blk.ptr<bf16> -> tensor<8192x!blk.ptr<bf16>>
  %op = blk.addptr %ob, %r : tensor<8192x!blk.ptr<bf16>>, tensor<8192xi32>
  blk.store %op, %x, %m : tensor<8192x!blk.ptr<bf16>>
  return
}

// -----

// The stride and the row length are even: rows start on 4 bytes and the
// mask is uniform over pairs, so chunks of 2 bf16 (one 32-bit access).
// CHECK-LABEL: func.func @bf16_even_stride
// CHECK:         blk.load %{{.*}} : tensor<8192x!blk.ptr<bf16>, #blkgpu.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
// NVVM-LABEL:  func.func @bf16_even_stride
// NVVM:          llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> vector<2xbf16>
func.func @bf16_even_stride(%in: !blk.ptr<bf16> {blk.divisibility = 16 : i32},
                            %stride: i32 {blk.divisibility = 2 : i32},
                            %n: i32 {blk.divisibility = 2 : i32}) {
  %pid = blk.program_id 0 : i32
  %start = arith.muli %pid, %stride : i32
  %r = blk.make_range 0 to 8192 : tensor<8192xi32>
  %nb = blk.splat %n : i32 -> tensor<8192xi32>
  %m = arith.cmpi slt, %r, %nb : tensor<8192xi32>
  %row = blk.addptr %in, %start : !blk.ptr<bf16>, i32
  %b = blk.splat %row : !blk.ptr<bf16> -> tensor<8192x!blk.ptr<bf16>>
  %p = blk.addptr %b, %r : tensor<8192x!blk.ptr<bf16>>, tensor<8192xi32>
  %x = blk.load %p, %m : tensor<8192x!blk.ptr<bf16>>
  blk.store %p, %x, %m : tensor<8192x!blk.ptr<bf16>>
  return
}

// -----

// Aligned rows under a mask whose bound has no known divisor: the mask does
// not narrow the chunk (4 f32 per thread): vectors whose lanes are all on
// stay vectors, the one at the bound goes element by element
// (nvvm-load-vector.mlir).
// CHECK-LABEL: func.func @f32_unknown_bound
// CHECK:         blk.load %{{.*}} : tensor<1024x!blk.ptr<f32>, #blkgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
func.func @f32_unknown_bound(%in: !blk.ptr<f32> {blk.divisibility = 16 : i32},
                             %n: i32) {
  %r = blk.make_range 0 to 1024 : tensor<1024xi32>
  %nb = blk.splat %n : i32 -> tensor<1024xi32>
  %m = arith.cmpi slt, %r, %nb : tensor<1024xi32>
  %b = blk.splat %in : !blk.ptr<f32> -> tensor<1024x!blk.ptr<f32>>
  %p = blk.addptr %b, %r : tensor<1024x!blk.ptr<f32>>, tensor<1024xi32>
  %x = blk.load %p, %m : tensor<1024x!blk.ptr<f32>>
  blk.store %p, %x, %m : tensor<1024x!blk.ptr<f32>>
  return
}

// -----

// Accesses without a contiguous run do not narrow the chunk: a gather
// (every other element) and a block of one repeated pointer coalesce alike
// under any layout, so the aligned load beside them keeps 4 per thread.
// CHECK-LABEL: func.func @gather_and_uniform
// CHECK:         blk.load %{{.*}} : tensor<1024x!blk.ptr<f32>, #blkgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
// CHECK:         blk.load %{{.*}} : tensor<1024x!blk.ptr<f32>, #blkgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
// CHECK:         blk.load %{{.*}} : tensor<1024x!blk.ptr<f32>, #blkgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
func.func @gather_and_uniform(%in: !blk.ptr<f32> {blk.divisibility = 16 : i32},
                              %scalar: !blk.ptr<f32>) {
  %r = blk.make_range 0 to 1024 : tensor<1024xi32>
  %b = blk.splat %in : !blk.ptr<f32> -> tensor<1024x!blk.ptr<f32>>
  %p = blk.addptr %b, %r : tensor<1024x!blk.ptr<f32>>, tensor<1024xi32>
  %x = blk.load %p : tensor<1024x!blk.ptr<f32>>
  %two = arith.constant dense<2> : tensor<1024xi32>
  %r2 = arith.muli %r, %two : tensor<1024xi32>
  %g = blk.addptr %b, %r2 : tensor<1024x!blk.ptr<f32>>, tensor<1024xi32>
  %y = blk.load %g : tensor<1024x!blk.ptr<f32>>
  %s = blk.splat %scalar : !blk.ptr<f32> -> tensor<1024x!blk.ptr<f32>>
  %z = blk.load %s : tensor<1024x!blk.ptr<f32>>
  %xy = arith.addf %x, %y : tensor<1024xf32>
  %xyz = arith.addf %xy, %z : tensor<1024xf32>
  blk.store %p, %xyz : tensor<1024x!blk.ptr<f32>>
  return
}

// -----

// A stretched row (blkgpu.stretched_dims) whose pointer is known only
// element-aligned (a weight row w) does not narrow the tile it is loaded at:
// the tile's own accesses keep 16-byte vectors; the row's loads are as wide
// as its own alignment allows. (Unmarked, a block of its size would narrow
// every access of that size to one element.)

// CHECK-LABEL: func.func @tile_times_row
// CHECK:         blk.load %{{.*}} : tensor<16x64x!blk.ptr<f32>, #blkgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>>
// CHECK:         blk.load %{{.*}} {blkgpu.stretched_dims = array<i64: 0>} : tensor<16x64x!blk.ptr<f32>, #blkgpu.blocked<{sizePerThread = [1, 4]
// CHECK:         blk.store %{{.*}} : tensor<16x64x!blk.ptr<f32>, #blkgpu.blocked<{sizePerThread = [1, 4]
func.func @tile_times_row(%out: !blk.ptr<f32> {blk.divisibility = 16 : i32}, %in: !blk.ptr<f32> {blk.divisibility = 16 : i32}, %w: !blk.ptr<f32>) {
  %c = blk.make_range 0 to 64 : tensor<64xi32>
  %c2 = blk.expand_dims %c axis = 0 : tensor<64xi32> -> tensor<1x64xi32>
  %cb = blk.broadcast %c2 : tensor<1x64xi32> -> tensor<16x64xi32>
  %r = blk.make_range 0 to 16 : tensor<16xi32>
  %r2 = blk.expand_dims %r axis = 1 : tensor<16xi32> -> tensor<16x1xi32>
  %rb = blk.broadcast %r2 : tensor<16x1xi32> -> tensor<16x64xi32>
  %k = arith.constant dense<64> : tensor<16x64xi32>
  %ro = arith.muli %rb, %k : tensor<16x64xi32>
  %off = arith.addi %ro, %cb : tensor<16x64xi32>
  %ib = blk.splat %in : !blk.ptr<f32> -> tensor<16x64x!blk.ptr<f32>>
  %ip = blk.addptr %ib, %off : tensor<16x64x!blk.ptr<f32>>, tensor<16x64xi32>
  %x = blk.load %ip : tensor<16x64x!blk.ptr<f32>>
  %wb = blk.splat %w : !blk.ptr<f32> -> tensor<16x64x!blk.ptr<f32>>
  %wp = blk.addptr %wb, %cb : tensor<16x64x!blk.ptr<f32>>, tensor<16x64xi32>
  %wv = blk.load %wp {blkgpu.stretched_dims = array<i64: 0>} : tensor<16x64x!blk.ptr<f32>>
  %y = arith.mulf %x, %wv : tensor<16x64xf32>
  %ob = blk.splat %out : !blk.ptr<f32> -> tensor<16x64x!blk.ptr<f32>>
  %op = blk.addptr %ob, %off : tensor<16x64x!blk.ptr<f32>>, tensor<16x64xi32>
  blk.store %op, %y : tensor<16x64x!blk.ptr<f32>>
  return
}
