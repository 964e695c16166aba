// RUN: blockjit-opt %s --split-input-file --blk-rematerialize-addresses | FileCheck %s
// RUN: blockjit-opt %s --split-input-file --blk-assign-layouts="num-warps=4" --blk-rematerialize-addresses --convert-blk-to-nvvm --canonicalize --cse | FileCheck %s --check-prefix=NVVM

// blk-rematerialize-addresses: a whole-column softmax in a strip loop. The
// row offsets (rows * stride) and the row mask do not depend on the strip,
// and the load and the store would share them; instead each access gets its
// own copy of its index arithmetic right in front of it, the ranges in it
// marked blkgpu.rematerialized, and the originals (outside the loop) are
// gone.

// CHECK-LABEL: func.func @columns
// Nothing of the index arithmetic is left before the loop.
// CHECK-NOT:     blk.make_range
// CHECK:         scf.for
// The load's copy: the row range and its broadcast, the mask, the offsets.
// CHECK:           blk.make_range 0 to 64 :
// CHECK:           blk.broadcast %{{.*}} {blkgpu.rematerialized}
// CHECK:           %[[LPTR:.*]] = blk.addptr
// CHECK:           %[[LMASK:.*]] = arith.andi
// CHECK:           %[[X:.*]] = blk.load %[[LPTR]], %[[LMASK]]
// CHECK:           blk.reduce max %[[X]]
// CHECK:           blk.reduce sum
// The store's own copy, after the reductions.
// CHECK:           blk.make_range 0 to 64 :
// CHECK:           blk.broadcast %{{.*}} {blkgpu.rematerialized}
// CHECK:           %[[SPTR:.*]] = blk.addptr
// CHECK:           %[[SMASK:.*]] = arith.andi
// CHECK-NEXT:      blk.store %[[SPTR]], %{{.*}}, %[[SMASK]]
// CHECK-NOT:       blk.make_range
// CHECK:         }

// After the lowering, each access's row and column indices start from
// their own side-effect copies of the thread's index, two for the load and
// two for the store, inside the loop (LLVM can neither hoist nor merge
// what is computed from them).
// NVVM-LABEL: func.func @columns
// NVVM:         scf.for
// NVVM-COUNT-2:   llvm.inline_asm has_side_effects "mov.b32 $0, $1;", "=r,r"
// NVVM-NOT:       llvm.inline_asm
// NVVM:           llvm.load %{{.*}} : !llvm.ptr<1> -> vector<4xf32>
// NVVM-NOT:       llvm.inline_asm
// NVVM:           nvvm.barrier0
// NVVM-COUNT-2:   llvm.inline_asm has_side_effects "mov.b32 $0, $1;", "=r,r"
// NVVM-NOT:       llvm.inline_asm
// NVVM:           llvm.store %{{.*}} : vector<4xf32>, !llvm.ptr<1>
// NVVM-NOT:       llvm.inline_asm
// NVVM:         return
func.func @columns(%out: !blk.ptr<f32> {blk.divisibility = 16 : i32}, %in: !blk.ptr<f32> {blk.divisibility = 16 : i32}, %stride: i32 {blk.divisibility = 16 : i32}, %n_rows: i32, %n_strips: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c16 = arith.constant 16 : i32
  %ninf = arith.constant dense<0xFF800000> : tensor<64x16xf32>
  %rows = blk.make_range 0 to 64 : tensor<64xi32>
  %r2 = blk.expand_dims %rows axis = 1 : tensor<64xi32> -> tensor<64x1xi32>
  %rb = blk.broadcast %r2 : tensor<64x1xi32> -> tensor<64x16xi32>
  %n = blk.splat %n_rows : i32 -> tensor<64x16xi32>
  %rmask = arith.cmpi slt, %rb, %n : tensor<64x16xi32>
  %s = blk.splat %stride : i32 -> tensor<64x16xi32>
  %roff = arith.muli %rb, %s : tensor<64x16xi32>
  %cols = blk.make_range 0 to 16 : tensor<16xi32>
  %c2 = blk.expand_dims %cols axis = 0 : tensor<16xi32> -> tensor<1x16xi32>
  %cb = blk.broadcast %c2 : tensor<1x16xi32> -> tensor<64x16xi32>
  %inb = blk.splat %in : !blk.ptr<f32> -> tensor<64x16x!blk.ptr<f32>>
  %outb = blk.splat %out : !blk.ptr<f32> -> tensor<64x16x!blk.ptr<f32>>
  scf.for %strip = %c0 to %n_strips step %c1 : i32 {
    %first = arith.muli %strip, %c16 : i32
    %fs = blk.splat %first : i32 -> tensor<64x16xi32>
    %col = arith.addi %fs, %cb : tensor<64x16xi32>
    %off = arith.addi %roff, %col : tensor<64x16xi32>
    %mask = arith.andi %rmask, %rmask : tensor<64x16xi1>
    %p = blk.addptr %inb, %off : tensor<64x16x!blk.ptr<f32>>, tensor<64x16xi32>
    %x = blk.load %p, %mask, %ninf : tensor<64x16x!blk.ptr<f32>>
    %m = blk.reduce max %x axis = 0 : tensor<64x16xf32> -> tensor<16xf32>
    %m2 = blk.expand_dims %m axis = 0 : tensor<16xf32> -> tensor<1x16xf32>
    %mb = blk.broadcast %m2 : tensor<1x16xf32> -> tensor<64x16xf32>
    %d = arith.subf %x, %mb : tensor<64x16xf32>
    %e = math.exp %d : tensor<64x16xf32>
    %sum = blk.reduce sum %e axis = 0 : tensor<64x16xf32> -> tensor<16xf32>
    %s2 = blk.expand_dims %sum axis = 0 : tensor<16xf32> -> tensor<1x16xf32>
    %sb = blk.broadcast %s2 : tensor<1x16xf32> -> tensor<64x16xf32>
    %y = arith.divf %e, %sb : tensor<64x16xf32>
    %q = blk.addptr %outb, %off : tensor<64x16x!blk.ptr<f32>>, tensor<64x16xi32>
    blk.store %q, %y, %mask : tensor<64x16x!blk.ptr<f32>>
  }
  return
}

// -----

// 1-D accesses (a base and constant offsets per element) and index
// arithmetic that reads a loaded block are left as they are: only the
// range-derived part of the gather's addresses is copied, the loaded
// offsets stay shared.

// CHECK-LABEL: func.func @row_and_gather
// CHECK:         %[[R:.*]] = blk.make_range 0 to 64 : tensor<64xi32>
// CHECK-NOT:     blkgpu.rematerialized
// CHECK:         %[[IDX:.*]] = blk.load %{{.*}} : tensor<64x!blk.ptr<i32>>
// CHECK:         %[[IB:.*]] = blk.broadcast %{{.*}} : tensor<64x1xi32> -> tensor<64x4xi32>
// CHECK:         blk.make_range 0 to 4 :
// CHECK:         arith.addi %[[IB]],
// CHECK:         blk.load
func.func @row_and_gather(%idx: !blk.ptr<i32>, %in: !blk.ptr<f32>, %out: !blk.ptr<f32>) {
  %r = blk.make_range 0 to 64 : tensor<64xi32>
  %ib = blk.splat %idx : !blk.ptr<i32> -> tensor<64x!blk.ptr<i32>>
  %ip = blk.addptr %ib, %r : tensor<64x!blk.ptr<i32>>, tensor<64xi32>
  %i = blk.load %ip : tensor<64x!blk.ptr<i32>>
  %i2 = blk.expand_dims %i axis = 1 : tensor<64xi32> -> tensor<64x1xi32>
  %ibc = blk.broadcast %i2 : tensor<64x1xi32> -> tensor<64x4xi32>
  %c = blk.make_range 0 to 4 : tensor<4xi32>
  %c2 = blk.expand_dims %c axis = 0 : tensor<4xi32> -> tensor<1x4xi32>
  %cb = blk.broadcast %c2 : tensor<1x4xi32> -> tensor<64x4xi32>
  %off = arith.addi %ibc, %cb : tensor<64x4xi32>
  %inb = blk.splat %in : !blk.ptr<f32> -> tensor<64x4x!blk.ptr<f32>>
  %p = blk.addptr %inb, %off : tensor<64x4x!blk.ptr<f32>>, tensor<64x4xi32>
  %x = blk.load %p : tensor<64x4x!blk.ptr<f32>>
  %s = blk.reduce sum %x axis = 1 : tensor<64x4xf32> -> tensor<64xf32>
  %ob = blk.splat %out : !blk.ptr<f32> -> tensor<64x!blk.ptr<f32>>
  %op = blk.addptr %ob, %r : tensor<64x!blk.ptr<f32>>, tensor<64xi32>
  blk.store %op, %s : tensor<64x!blk.ptr<f32>>
  return
}

// -----

// An access inside scf.if gets its copy inside the branch. An original that
// a 1-D access still uses stays (only the 2-D access's copy is new), and a
// store's value is never copied, even when it is index arithmetic; nor is a
// division in an address (it stays shared, an operand of the copy).

// CHECK-LABEL: func.func @branch_and_shared
// CHECK:         %[[R:.*]] = blk.make_range 0 to 32 : tensor<32xi32>
// CHECK:         %[[Q:.*]] = arith.divsi
// CHECK:         blk.store %{{.*}}, %[[R]] : tensor<32x!blk.ptr<i32>>
// CHECK:         scf.if
// CHECK:           blk.make_range 0 to 32 :
// CHECK:           blk.broadcast %{{.*}} {blkgpu.rematerialized}
// CHECK:           arith.addi %{{.*}}, %[[Q]]
// CHECK:           blk.addptr
// CHECK-NEXT:      blk.store %{{.*}}, %[[V:.*]] : tensor<32x4x!blk.ptr<i32>>
// CHECK:         }
func.func @branch_and_shared(%out1: !blk.ptr<i32>, %out2: !blk.ptr<i32>, %c: i1, %d: i32) {
  %r = blk.make_range 0 to 32 : tensor<32xi32>
  %b1 = blk.splat %out1 : !blk.ptr<i32> -> tensor<32x!blk.ptr<i32>>
  %p1 = blk.addptr %b1, %r : tensor<32x!blk.ptr<i32>>, tensor<32xi32>
  %r2 = blk.expand_dims %r axis = 1 : tensor<32xi32> -> tensor<32x1xi32>
  %rb = blk.broadcast %r2 : tensor<32x1xi32> -> tensor<32x4xi32>
  %ds = blk.splat %d : i32 -> tensor<32x4xi32>
  %q = arith.divsi %rb, %ds : tensor<32x4xi32>
  %off = arith.addi %rb, %q : tensor<32x4xi32>
  %b2 = blk.splat %out2 : !blk.ptr<i32> -> tensor<32x4x!blk.ptr<i32>>
  %p2 = blk.addptr %b2, %off : tensor<32x4x!blk.ptr<i32>>, tensor<32x4xi32>
  blk.store %p1, %r : tensor<32x!blk.ptr<i32>>
  scf.if %c {
    blk.store %p2, %off : tensor<32x4x!blk.ptr<i32>>
  }
  return
}
