// RUN: blockjit-opt %s --split-input-file --blk-assign-layouts="num-warps=4 num-ctas=4" \
// RUN:   --convert-blk-to-nvvm --canonicalize --cse | FileCheck %s

// blkgpu.all_reduce down the columns of a 2048x8 f32 block split over a
// cluster of 4 CTAs (4 warps, vector 4; docs/LAYOUTS.md). The row index's
// bits lie in thread bits 1-6, CTA bits 0-1 and register bits 2-4: each
// thread combines 8 registers per column it holds (4 partials), then
// shuffles (offsets 2, 4, 8, 16), then warps through the scratch array,
// then the cluster:
// - the thread's lines are its thread bits without the axis's (tid & 1,
//   tid >> 7: 2 writers x 4 columns = 8 lines per CTA) and its position
//   along the axis (tid & 126) >> 1;
// - the phase flips, and positions 0-3 each send the 4 partials to CTA
//   `position` (mapa to a shared::cluster address): slot (rank * 4 + g) * 2
//   + lines of the buffer, interleaved with the other phase (2 * slot +
//   phase), 8 bytes each: 2 x 4 x 8 x 8 = 512 bytes;
// - one cluster barrier, then every thread reads its lines' partials of
//   the 4 CTAs (16 loads) and combines them in rank order.

// CHECK:       llvm.mlir.global internal @__blk_cluster_columns() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<512 x i8>
// CHECK-LABEL: func.func @columns
// CHECK:         %[[CLUSTER:.*]] = llvm.mlir.addressof @__blk_cluster_columns : !llvm.ptr<3>
// CHECK:         %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK:         %[[RANK:.*]] = nvvm.read.ptx.sreg.cluster.ctarank : i32
// CHECK:         %[[PHASE:.*]] = llvm.alloca
// CHECK-COUNT-4: nvvm.shfl.sync  bfly %{{.*}}, %{{.*}}, %c2_i32
// CHECK-COUNT-4: nvvm.shfl.sync  bfly %{{.*}}, %{{.*}}, %c4_i32
// CHECK-COUNT-4: nvvm.shfl.sync  bfly %{{.*}}, %{{.*}}, %c8_i32
// CHECK-COUNT-4: nvvm.shfl.sync  bfly %{{.*}}, %{{.*}}, %c16_i32
// CHECK-NOT:     nvvm.shfl.sync
// CHECK:         nvvm.barrier0
// CHECK:         nvvm.barrier0
// CHECK-NEXT:    %[[AXISBITS:.*]] = arith.andi %[[TID]], %c126_i32 : i32
// CHECK-NEXT:    %[[POS:.*]] = arith.shrui %[[AXISBITS]], %c1_i32 : i32
// CHECK-NEXT:    %[[HIGH:.*]] = arith.shrui %[[TID]], %c7_i32 : i32
// CHECK-NEXT:    %[[HIGH2:.*]] = arith.shli %[[HIGH]], %c1_i32 : i32
// CHECK-NEXT:    %[[LINES:.*]] = arith.ori %{{.*}}, %[[HIGH2]] : i32
// CHECK-NEXT:    %[[OLD:.*]] = llvm.load %[[PHASE]] : !llvm.ptr -> i32
// CHECK-NEXT:    %[[NEW:.*]] = arith.xori %[[OLD]], %c1_i32 : i32
// CHECK-NEXT:    llvm.store %[[NEW]], %[[PHASE]] : i32, !llvm.ptr
// CHECK-NEXT:    %[[SENDER:.*]] = arith.cmpi ult, %[[POS]], %c4_i32 : i32
// CHECK-NEXT:    scf.if %[[SENDER]] {
// CHECK-COUNT-4:   nvvm.mapa %{{.*}}, %[[POS]] : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK-NOT:       nvvm.mapa
// CHECK:         }
// CHECK-NEXT:    nvvm.cluster.arrive
// CHECK-NEXT:    nvvm.cluster.wait
// CHECK-COUNT-16: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK-NOT:     nvvm.mapa
// CHECK:         nvvm.cluster.arrive
// CHECK-NEXT:    nvvm.cluster.wait
// CHECK-NEXT:    return
func.func @columns(%in: !blk.ptr<f32> {blk.divisibility = 16 : i32}, %out: !blk.ptr<f32> {blk.divisibility = 16 : i32}) {
  %r = blk.make_range 0 to 16384 : tensor<16384xi32>
  %r2 = blk.reshape %r : tensor<16384xi32> -> tensor<2048x8xi32>
  %p = blk.splat %in : !blk.ptr<f32> -> tensor<2048x8x!blk.ptr<f32>>
  %pp = blk.addptr %p, %r2 : tensor<2048x8x!blk.ptr<f32>>, tensor<2048x8xi32>
  %x = blk.load %pp : tensor<2048x8x!blk.ptr<f32>>
  %m = blkgpu.all_reduce max %x axis = 0 : tensor<2048x8xf32>
  %q = blk.splat %out : !blk.ptr<f32> -> tensor<2048x8x!blk.ptr<f32>>
  %qq = blk.addptr %q, %r2 : tensor<2048x8x!blk.ptr<f32>>, tensor<2048x8xi32>
  blk.store %qq, %m : tensor<2048x8x!blk.ptr<f32>>
  return
}

// -----

// Along the columns (axis 1) of the same split block: the axis stays in
// each thread's registers and lanes, nothing crosses the cluster.
// CHECK-LABEL: func.func @rows
// CHECK-NOT:     nvvm.mapa
// CHECK:         return
func.func @rows(%in: !blk.ptr<f32> {blk.divisibility = 16 : i32}, %out: !blk.ptr<f32> {blk.divisibility = 16 : i32}) {
  %r = blk.make_range 0 to 16384 : tensor<16384xi32>
  %r2 = blk.reshape %r : tensor<16384xi32> -> tensor<2048x8xi32>
  %p = blk.splat %in : !blk.ptr<f32> -> tensor<2048x8x!blk.ptr<f32>>
  %pp = blk.addptr %p, %r2 : tensor<2048x8x!blk.ptr<f32>>, tensor<2048x8xi32>
  %x = blk.load %pp : tensor<2048x8x!blk.ptr<f32>>
  %m = blkgpu.all_reduce sum %x axis = 1 : tensor<2048x8xf32>
  %q = blk.splat %out : !blk.ptr<f32> -> tensor<2048x8x!blk.ptr<f32>>
  %qq = blk.addptr %q, %r2 : tensor<2048x8x!blk.ptr<f32>>, tensor<2048x8xi32>
  blk.store %qq, %m : tensor<2048x8x!blk.ptr<f32>>
  return
}

// -----

// 64x256 over 4 warps: the rows take one thread bit (2 positions along the
// axis) and 2 CTA bits, so each thread sends its partials to 2 CTAs
// (position and position + 2): 2 x 4 mapa (4 column partials), unguarded.
// CHECK-LABEL: func.func @wide
// CHECK-NOT:     scf.if
// CHECK:         nvvm.cluster.wait
// CHECK:         llvm.store %{{.*}}, %[[PHASE:.*]] : i32, !llvm.ptr
// CHECK-COUNT-8: nvvm.mapa
// CHECK-NOT:     nvvm.mapa
// CHECK:         nvvm.cluster.arrive
func.func @wide(%in: !blk.ptr<f32> {blk.divisibility = 16 : i32}) {
  %r = blk.make_range 0 to 16384 : tensor<16384xi32>
  %r2 = blk.reshape %r : tensor<16384xi32> -> tensor<64x256xi32>
  %p = blk.splat %in : !blk.ptr<f32> -> tensor<64x256x!blk.ptr<f32>>
  %pp = blk.addptr %p, %r2 : tensor<64x256x!blk.ptr<f32>>, tensor<64x256xi32>
  %x = blk.load %pp : tensor<64x256x!blk.ptr<f32>>
  %m = blkgpu.all_reduce max %x axis = 0 : tensor<64x256xf32>
  blk.store %pp, %m : tensor<64x256x!blk.ptr<f32>>
  return
}
