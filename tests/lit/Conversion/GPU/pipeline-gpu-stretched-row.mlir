// RUN: blockjit-opt %s --blockjit-gpu-pipeline="num-warps=4 sm=90" | FileCheck %s
// RUN: blockjit-opt %s --blockjit-gpu-pipeline="num-warps=4 sm=90" \
// RUN:   | grep -c "llvm.load .*!llvm.ptr<1> -> vector<4xf32>" | FileCheck %s --check-prefix=LOADS
// RUN: blockjit-opt %s --blockjit-gpu-pipeline="num-warps=4 sm=90" \
// RUN:   | grep -c "llvm.store .*!llvm.ptr<1>" | FileCheck %s --check-prefix=STORES

// A weight row stretched over a tile's rows, loaded once before a persistent
// loop over 64 x 64 f32 tiles (y = x * w[None, :]), through the whole GPU
// pipeline. On 4 warps a thread holds 4 contiguous columns of 8 rows (8
// vectors). blk-sink-broadcasts loads the row at the tile's shape, stretched
// along dim 0, so each thread reads its own 4 columns: the 8 registers'
// vectors differ only in row bits and the lowering loads the first, one
// 16-byte load in front of the loop; no shared memory and no barrier (the
// broadcast through shared memory took a scalar load, a store, a barrier,
// reads and a second barrier). In the loop: 8 vector loads of x, 8 stores.

// CHECK-LABEL: llvm.func @tile_scale
// CHECK-NOT:     nvvm.barrier
// CHECK-NOT:     !llvm.ptr<3>
// CHECK:         llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK:         llvm.cond_br
// CHECK-NOT:     nvvm.barrier
// CHECK-NOT:     !llvm.ptr<3>
// CHECK:         llvm.return

// LOADS: 9
// STORES: 8

func.func @tile_scale(%out: !blk.ptr<f32> {blk.divisibility = 16 : i32}, %in: !blk.ptr<f32> {blk.divisibility = 16 : i32}, %w: !blk.ptr<f32> {blk.divisibility = 16 : i32},
                      %stride: i32 {blk.divisibility = 16 : i32}, %n_rows: i32, %n_cols: i32 {blk.divisibility = 16 : i32}, %n_tiles: i32) {
  %pid = blk.program_id 0 : i32
  %np = blk.num_programs 0 : i32
  %cols = blk.make_range 0 to 64 : tensor<64xi32>
  %c2 = blk.expand_dims %cols axis = 0 : tensor<64xi32> -> tensor<1x64xi32>
  %ncs = blk.splat %n_cols : i32 -> tensor<1x64xi32>
  %cmask = arith.cmpi slt, %c2, %ncs : tensor<1x64xi32>
  %wb = blk.splat %w : !blk.ptr<f32> -> tensor<1x64x!blk.ptr<f32>>
  %wp = blk.addptr %wb, %c2 : tensor<1x64x!blk.ptr<f32>>, tensor<1x64xi32>
  %zero = arith.constant dense<0.0> : tensor<1x64xf32>
  %wrow = blk.load %wp, %cmask, %zero : tensor<1x64x!blk.ptr<f32>>
  %rows0 = blk.make_range 0 to 64 : tensor<64xi32>
  scf.for %t = %pid to %n_tiles step %np : i32 {
    %c16 = arith.constant 64 : i32
    %r0 = arith.muli %t, %c16 : i32
    %r0s = blk.splat %r0 : i32 -> tensor<64xi32>
    %rows = arith.addi %r0s, %rows0 : tensor<64xi32>
    %r2 = blk.expand_dims %rows axis = 1 : tensor<64xi32> -> tensor<64x1xi32>
    %ss = blk.splat %stride : i32 -> tensor<64x1xi32>
    %roff = arith.muli %r2, %ss : tensor<64x1xi32>
    %roffb = blk.broadcast %roff : tensor<64x1xi32> -> tensor<64x64xi32>
    %cb = blk.broadcast %c2 : tensor<1x64xi32> -> tensor<64x64xi32>
    %offs = arith.addi %roffb, %cb : tensor<64x64xi32>
    %nrs = blk.splat %n_rows : i32 -> tensor<64x1xi32>
    %rmask = arith.cmpi slt, %r2, %nrs : tensor<64x1xi32>
    %rmb = blk.broadcast %rmask : tensor<64x1xi1> -> tensor<64x64xi1>
    %cmb = blk.broadcast %cmask : tensor<1x64xi1> -> tensor<64x64xi1>
    %mask = arith.andi %rmb, %cmb : tensor<64x64xi1>
    %ib = blk.splat %in : !blk.ptr<f32> -> tensor<64x64x!blk.ptr<f32>>
    %ip = blk.addptr %ib, %offs : tensor<64x64x!blk.ptr<f32>>, tensor<64x64xi32>
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %x = blk.load %ip, %mask, %z : tensor<64x64x!blk.ptr<f32>>
    %wfull = blk.broadcast %wrow : tensor<1x64xf32> -> tensor<64x64xf32>
    %y = arith.mulf %x, %wfull : tensor<64x64xf32>
    %ob = blk.splat %out : !blk.ptr<f32> -> tensor<64x64x!blk.ptr<f32>>
    %op = blk.addptr %ob, %offs : tensor<64x64x!blk.ptr<f32>>, tensor<64x64xi32>
    blk.store %op, %y, %mask : tensor<64x64x!blk.ptr<f32>>
  }
  return
}
