// RUN: blockjit-opt %s --split-input-file --blk-assign-layouts="num-warps=4" \
// RUN:   --convert-blk-to-nvvm | FileCheck %s
// RUN: blockjit-opt %s --split-input-file --blk-assign-layouts="num-warps=1" \
// RUN:   --convert-blk-to-nvvm | FileCheck %s --check-prefix=W1

// A 1-D scan of 1024 f32 with 4 warps: 4 contiguous elements per thread
// and 2 repeats of the 512-element tile. Per repeat: the thread's 4
// elements in registers (3 combines), shfl.up by 1, 2, 4, 8, 16 across the
// lanes (lanes below the offset keep their value: no identity), and shfl.up
// by 1 for what precedes the thread in its warp. Then lane 31 of each warp
// publishes its warp's totals (one slot per repeat and warp) between two
// barriers that every thread reaches; every thread combines the warps
// before its own, and the second repeat also gets the first tile's total.
// CHECK-LABEL: func.func @scan_1024
// CHECK-COUNT-3: arith.addf
// CHECK:         nvvm.shfl.sync  up %{{.*}}, %{{.*}}, %c1_i32{{.*}} : f32 -> f32
// CHECK:         nvvm.shfl.sync  up %{{.*}}, %{{.*}}, %c2_i32{{.*}} : f32 -> f32
// CHECK:         nvvm.shfl.sync  up %{{.*}}, %{{.*}}, %c4_i32{{.*}} : f32 -> f32
// CHECK:         nvvm.shfl.sync  up %{{.*}}, %{{.*}}, %c8_i32{{.*}} : f32 -> f32
// CHECK:         nvvm.shfl.sync  up %{{.*}}, %{{.*}}, %c16_i32{{.*}} : f32 -> f32
// CHECK:         nvvm.shfl.sync  up %{{.*}}, %{{.*}}, %c1_i32{{.*}} : f32 -> f32
// CHECK-COUNT-6: nvvm.shfl.sync  up
// CHECK-NOT:     nvvm.barrier0
// CHECK:         %[[LAST:.*]] = arith.cmpi eq, %{{.*}}, %c31_i32
// CHECK:         scf.if %[[LAST]] {
// CHECK-NOT:       nvvm.barrier0
// CHECK:           llvm.store %{{.*}} : f32, !llvm.ptr<3>
// CHECK-NOT:       nvvm.barrier0
// CHECK:           llvm.store %{{.*}} : f32, !llvm.ptr<3>
// CHECK:         }
// CHECK:         nvvm.barrier0
// CHECK-COUNT-8: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK-NOT:     llvm.store %{{.*}} !llvm.ptr<3>
// CHECK:         nvvm.barrier0
// CHECK-NOT:     nvvm.barrier0
// CHECK:         return
// With one warp: no shared memory, the first tile's total comes from lane
// 31 by an indexed shuffle.
// W1-LABEL: func.func @scan_1024
// W1-NOT:     nvvm.barrier0
// W1:         nvvm.shfl.sync  idx %{{.*}}, %{{.*}}, %c31_i32
// W1-NOT:     nvvm.barrier0
// W1:         return
func.func @scan_1024(%p: !blk.ptr<f32>) {
  %r = blk.make_range 0 to 1024 : tensor<1024xi32>
  %ps = blk.splat %p : !blk.ptr<f32> -> tensor<1024x!blk.ptr<f32>>
  %a = blk.addptr %ps, %r : tensor<1024x!blk.ptr<f32>>, tensor<1024xi32>
  %x = blk.load %a : tensor<1024x!blk.ptr<f32>>
  %s = blk.scan %x axis = 0 : tensor<1024xf32> {
  ^bb0(%l: f32, %rr: f32):
    %c = arith.addf %l, %rr : f32
    blk.scan_return %c : f32
  }
  blk.store %a, %s : tensor<1024x!blk.ptr<f32>>
  return
}

// -----

// A reverse scan of a 16-element block with 4 warps: every thread holds one
// element, lanes 16..31 and warps 1..3 replicas. The lanes scan in segments
// of 16 with shfl.down (4 steps), lane l having later lanes where
// l % 16 < 16 - offset; no shared memory, no barrier. The combine keeps the
// left operand unless it is 0: the running value is always on the left.
// CHECK-LABEL: func.func @scan_reverse_16
// CHECK:         %[[LANE:.*]] = arith.andi %{{.*}}, %c31_i32
// CHECK:         %[[POS:.*]] = arith.andi %[[LANE]], %c15_i32
// CHECK:         %[[E1:.*]] = nvvm.shfl.sync  down %{{.*}}, %[[X:.*]], %c1_i32{{.*}}, %c31_i32{{.*}} : i32 -> i32
// CHECK:         %[[C15:.*]] = arith.constant 15 : i32
// CHECK:         %[[HAS:.*]] = arith.cmpi slt, %[[POS]], %[[C15]] : i32
// CHECK:         %[[NZ:.*]] = arith.cmpi ne, %[[E1]], %{{.*}} : i32
// CHECK:         %[[K:.*]] = arith.select %[[NZ]], %[[E1]], %[[X]] : i32
// CHECK:         arith.select %[[HAS]], %[[K]], %[[X]] : i32
// CHECK-COUNT-3: nvvm.shfl.sync  down
// CHECK-NOT:     nvvm.shfl.sync
// CHECK-NOT:     nvvm.barrier0
// CHECK:         return
func.func @scan_reverse_16(%p: !blk.ptr<i32>) {
  %r = blk.make_range 0 to 16 : tensor<16xi32>
  %ps = blk.splat %p : !blk.ptr<i32> -> tensor<16x!blk.ptr<i32>>
  %a = blk.addptr %ps, %r : tensor<16x!blk.ptr<i32>>, tensor<16xi32>
  %x = blk.load %a : tensor<16x!blk.ptr<i32>>
  %s = blk.scan %x axis = 0 reverse : tensor<16xi32> {
  ^bb0(%l: i32, %rr: i32):
    %zero = arith.constant 0 : i32
    %nz = arith.cmpi ne, %l, %zero : i32
    %k = arith.select %nz, %l, %rr : i32
    blk.scan_return %k : i32
  }
  blk.store %a, %s : tensor<16x!blk.ptr<i32>>
  return
}

// -----

// 64 i64 elements with 4 warps: warps 2 and 3 replicate warps 0 and 1. Each
// shuffle moves the two 32-bit halves; every warp's lane 31 publishes in
// its own slot, and a thread combines the total of warp 0 where its warp
// modulo 2 is 1.
// CHECK-LABEL: func.func @scan_64_i64
// CHECK:         %[[WARP:.*]] = arith.shrui %{{.*}}, %c5_i32
// CHECK:         %[[WPOS:.*]] = arith.andi %[[WARP]], %c1_i32
// CHECK:         nvvm.shfl.sync  up %{{.*}} : i32 -> i32
// CHECK:         arith.extui
// CHECK:         nvvm.shfl.sync  up %{{.*}} : i32 -> i32
// CHECK:         scf.if
// CHECK:           llvm.store %{{.*}} : i64, !llvm.ptr<3>
// CHECK:         nvvm.barrier0
// CHECK:         %[[HASW:.*]] = arith.cmpi sgt, %[[WPOS]], %{{.*}}
// CHECK-COUNT-2: llvm.load %{{.*}} : !llvm.ptr<3> -> i64
// CHECK:         nvvm.barrier0
// CHECK:         %[[M:.*]] = arith.maxsi %{{.*}}, %[[IN:.*]] : i64
// CHECK:         arith.select %[[HASW]], %[[M]], %[[IN]] : i64
func.func @scan_64_i64(%p: !blk.ptr<i64>) {
  %r = blk.make_range 0 to 64 : tensor<64xi32>
  %ps = blk.splat %p : !blk.ptr<i64> -> tensor<64x!blk.ptr<i64>>
  %a = blk.addptr %ps, %r : tensor<64x!blk.ptr<i64>>, tensor<64xi32>
  %x = blk.load %a : tensor<64x!blk.ptr<i64>>
  %s = blk.scan %x axis = 0 : tensor<64xi64> {
  ^bb0(%l: i64, %rr: i64):
    %c = arith.maxsi %l, %rr : i64
    blk.scan_return %c : i64
  }
  blk.store %a, %s : tensor<64x!blk.ptr<i64>>
  return
}

// -----

// A reverse scan along axis 0 of an 8x64 f16 block: the elements go to
// shared memory, thread t scans column lines t, t + 128, ... from row 7 up
// in place, and every thread reads its elements back; three barriers.
// CHECK-LABEL: func.func @scan_2d
// CHECK-COUNT-4: llvm.store %{{.*}} : f16, !llvm.ptr<3>
// CHECK:         nvvm.barrier0
// CHECK:         scf.for %[[LINE:.*]] = %[[TID:.*]] to %c64_i32{{.*}} step %c128_i32
// CHECK:           %[[FIRST:.*]] = llvm.load %{{.*}} : !llvm.ptr<3> -> f16
// CHECK:           scf.for %[[I:.*]] = %{{.*}} to %c8_i32 step %{{.*}} iter_args(%[[ACC:.*]] = %[[FIRST]]) -> (f16)
// CHECK:             %[[ROW:.*]] = arith.subi %c7_i32{{.*}}, %[[I]] : i32
// CHECK:             %[[E:.*]] = llvm.load %{{.*}} : !llvm.ptr<3> -> f16
// CHECK:             %[[M:.*]] = arith.maximumf %[[ACC]], %[[E]] : f16
// CHECK:             llvm.store %[[M]], %{{.*}} : f16, !llvm.ptr<3>
// CHECK:             scf.yield %[[M]] : f16
// CHECK:         nvvm.barrier0
// CHECK-COUNT-4: llvm.load %{{.*}} : !llvm.ptr<3> -> f16
// CHECK:         nvvm.barrier0
// CHECK-NOT:     blk.scan
func.func @scan_2d(%in: !blk.ptr<f16>) {
  %rows = blk.make_range 0 to 8 : tensor<8xi32>
  %cols = blk.make_range 0 to 64 : tensor<64xi32>
  %c64 = arith.constant 64 : i32
  %s = blk.splat %c64 : i32 -> tensor<8x1xi32>
  %r2 = blk.expand_dims %rows axis = 1 : tensor<8xi32> -> tensor<8x1xi32>
  %roff = arith.muli %r2, %s : tensor<8x1xi32>
  %c2 = blk.expand_dims %cols axis = 0 : tensor<64xi32> -> tensor<1x64xi32>
  %rb = blk.broadcast %roff : tensor<8x1xi32> -> tensor<8x64xi32>
  %cb = blk.broadcast %c2 : tensor<1x64xi32> -> tensor<8x64xi32>
  %off = arith.addi %rb, %cb : tensor<8x64xi32>
  %base = blk.splat %in : !blk.ptr<f16> -> tensor<8x64x!blk.ptr<f16>>
  %p = blk.addptr %base, %off : tensor<8x64x!blk.ptr<f16>>, tensor<8x64xi32>
  %x = blk.load %p : tensor<8x64x!blk.ptr<f16>>
  %y = blk.scan %x axis = 0 reverse : tensor<8x64xf16> {
  ^bb0(%a: f16, %b: f16):
    %c = arith.maximumf %a, %b : f16
    blk.scan_return %c : f16
  }
  blk.store %p, %y : tensor<8x64x!blk.ptr<f16>>
  return
}

// -----

// Rows along the last axis that hold whole tiles (2x2048 f32, tiles of 512)
// use the 1-D scan: 4 tiles per row, shuffles and one exchange of the warp
// totals, no shared-memory line loop; the carry between tiles restarts at
// each row's first tile.
// CHECK-LABEL: func.func @scan_rows
// CHECK-NOT:     scf.for
// CHECK:         nvvm.shfl.sync  up
// CHECK:         nvvm.barrier0
// CHECK:         nvvm.barrier0
// CHECK-NOT:     scf.for
// CHECK-NOT:     nvvm.barrier0
// CHECK:         return
func.func @scan_rows(%in: !blk.ptr<f32>, %out: !blk.ptr<f32>) {
  %rows = blk.make_range 0 to 2 : tensor<2xi32>
  %cols = blk.make_range 0 to 2048 : tensor<2048xi32>
  %cC = arith.constant 2048 : i32
  %s = blk.splat %cC : i32 -> tensor<2x1xi32>
  %r2 = blk.expand_dims %rows axis = 1 : tensor<2xi32> -> tensor<2x1xi32>
  %roff = arith.muli %r2, %s : tensor<2x1xi32>
  %c2 = blk.expand_dims %cols axis = 0 : tensor<2048xi32> -> tensor<1x2048xi32>
  %rb = blk.broadcast %roff : tensor<2x1xi32> -> tensor<2x2048xi32>
  %cb = blk.broadcast %c2 : tensor<1x2048xi32> -> tensor<2x2048xi32>
  %off = arith.addi %rb, %cb : tensor<2x2048xi32>
  %pi = blk.splat %in : !blk.ptr<f32> -> tensor<2x2048x!blk.ptr<f32>>
  %a = blk.addptr %pi, %off : tensor<2x2048x!blk.ptr<f32>>, tensor<2x2048xi32>
  %po = blk.splat %out : !blk.ptr<f32> -> tensor<2x2048x!blk.ptr<f32>>
  %b = blk.addptr %po, %off : tensor<2x2048x!blk.ptr<f32>>, tensor<2x2048xi32>
  %x = blk.load %a : tensor<2x2048x!blk.ptr<f32>>
  %y = blk.scan %x axis = 1 : tensor<2x2048xf32> {
  ^bb0(%l: f32, %rr: f32):
    %k = arith.addf %l, %rr : f32
    blk.scan_return %k : f32
  }
  blk.store %b, %y : tensor<2x2048x!blk.ptr<f32>>
  return
}
