// RUN: blockjit-opt %s --split-input-file --blk-assign-layouts="num-warps=1" \
// RUN:   --convert-blk-to-nvvm | FileCheck %s

// Loads and stores of blocks of any rank use vectors when the pointers are
// contiguous and aligned along the last dimension: a thread's chunk of
// `vector` consecutive linear indices stays within one row of the last
// dimension (blk-assign-layouts caps the vector by the shortest row), and
// AxisAnalysis's facts are runs along that dimension.

// 4x8x16 f32 with 1 warp: 16 elements per thread, chunks of 4 along rows of
// 16. The plane stride (128) and row stride (16) are constants, the base
// pointer 16-byte aligned: one 16-byte vector per chunk, loaded and stored.
// CHECK-LABEL: func.func @copy_3d
// CHECK-COUNT-4: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK-NOT:     blk.load
// CHECK-COUNT-4: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK-NOT:     blk.store
// CHECK:         return
func.func @copy_3d(%in: !blk.ptr<f32> {blk.divisibility = 16 : i32},
                   %out: !blk.ptr<f32> {blk.divisibility = 16 : i32}) {
  %i = blk.make_range 0 to 4 : tensor<4xi32>
  %j = blk.make_range 0 to 8 : tensor<8xi32>
  %k = blk.make_range 0 to 16 : tensor<16xi32>
  %i1 = blk.expand_dims %i axis = 1 : tensor<4xi32> -> tensor<4x1xi32>
  %i2 = blk.expand_dims %i1 axis = 2 : tensor<4x1xi32> -> tensor<4x1x1xi32>
  %j1 = blk.expand_dims %j axis = 0 : tensor<8xi32> -> tensor<1x8xi32>
  %j2 = blk.expand_dims %j1 axis = 2 : tensor<1x8xi32> -> tensor<1x8x1xi32>
  %k1 = blk.expand_dims %k axis = 0 : tensor<16xi32> -> tensor<1x16xi32>
  %k2 = blk.expand_dims %k1 axis = 0 : tensor<1x16xi32> -> tensor<1x1x16xi32>
  %c128 = arith.constant dense<128> : tensor<4x1x1xi32>
  %c16 = arith.constant dense<16> : tensor<1x8x1xi32>
  %io = arith.muli %i2, %c128 : tensor<4x1x1xi32>
  %jo = arith.muli %j2, %c16 : tensor<1x8x1xi32>
  %ib = blk.broadcast %io : tensor<4x1x1xi32> -> tensor<4x8x16xi32>
  %jb = blk.broadcast %jo : tensor<1x8x1xi32> -> tensor<4x8x16xi32>
  %kb = blk.broadcast %k2 : tensor<1x1x16xi32> -> tensor<4x8x16xi32>
  %ij = arith.addi %ib, %jb : tensor<4x8x16xi32>
  %off = arith.addi %ij, %kb : tensor<4x8x16xi32>
  %p = blk.splat %in : !blk.ptr<f32> -> tensor<4x8x16x!blk.ptr<f32>>
  %a = blk.addptr %p, %off : tensor<4x8x16x!blk.ptr<f32>>, tensor<4x8x16xi32>
  %x = blk.load %a : tensor<4x8x16x!blk.ptr<f32>>
  %q = blk.splat %out : !blk.ptr<f32> -> tensor<4x8x16x!blk.ptr<f32>>
  %b = blk.addptr %q, %off : tensor<4x8x16x!blk.ptr<f32>>, tensor<4x8x16xi32>
  blk.store %b, %x : tensor<4x8x16x!blk.ptr<f32>>
  return
}

// -----

// A row stride of 17 (not a multiple of the vector): the rows start
// misaligned, so every access stays scalar.
// CHECK-LABEL: func.func @odd_stride_2d
// CHECK-NOT:     vector<
// CHECK:         blk.load %{{.*}} : !blk.ptr<f32>
// CHECK-NOT:     vector<
// CHECK:         return
func.func @odd_stride_2d(%in: !blk.ptr<f32> {blk.divisibility = 16 : i32}) {
  %r = blk.make_range 0 to 8 : tensor<8xi32>
  %c = blk.make_range 0 to 64 : tensor<64xi32>
  %r1 = blk.expand_dims %r axis = 1 : tensor<8xi32> -> tensor<8x1xi32>
  %c1 = blk.expand_dims %c axis = 0 : tensor<64xi32> -> tensor<1x64xi32>
  %s = arith.constant dense<17> : tensor<8x1xi32>
  %ro = arith.muli %r1, %s : tensor<8x1xi32>
  %rb = blk.broadcast %ro : tensor<8x1xi32> -> tensor<8x64xi32>
  %cb = blk.broadcast %c1 : tensor<1x64xi32> -> tensor<8x64xi32>
  %off = arith.addi %rb, %cb : tensor<8x64xi32>
  %p = blk.splat %in : !blk.ptr<f32> -> tensor<8x64x!blk.ptr<f32>>
  %a = blk.addptr %p, %off : tensor<8x64x!blk.ptr<f32>>, tensor<8x64xi32>
  %x = blk.load %a : tensor<8x64x!blk.ptr<f32>>
  blk.store %a, %x : tensor<8x64x!blk.ptr<f32>>
  return
}
