// RUN: blockjit-opt %s --split-input-file --blk-assign-layouts="num-warps=4 num-ctas=4" \
// RUN:   --convert-blk-to-nvvm --canonicalize --cse | FileCheck %s

// blkgpu.all_reduce down the columns of a 2048x8 f32 block split over a
// cluster of 4 CTAs (4 warps, vector 4; docs/LAYOUTS.md). The row index's
// bits lie in thread bits 1-6, CTA bits 0-1 and register bits 2-4: each
// thread combines 8 registers per column it holds (4 partials), then
// shuffles (offsets 2, 4, 8, 16), then warps through the scratch array,
// then the cluster:
// - at entry, thread 0 initializes the two mbarriers of
//   @__blk_cluster_mbar_columns and fences the init, before the entry
//   cluster barrier;
// - the thread's lines are its thread bits without the axis's (tid & 1,
//   tid >> 7: 2 writers x 4 columns = 8 lines per CTA) and its position
//   along the axis (tid & 126) >> 1;
// - the exchange counter n steps (half n & 1, mbarrier parity
//   (n >> 1) & 1); after a CTA barrier, thread 0 expects 128 bytes on the
//   half's mbarrier (4 CTAs x 8 lines x 4 bytes); positions 0-3 each send
//   the 4 partials with st.async to CTA `position` (the slot and the
//   mbarrier mapa'd to shared::cluster addresses): slot (rank * 4 + g) * 2
//   + lines of the buffer, interleaved with the other half (2 * slot +
//   half), 8 bytes each: 2 x 4 x 8 x 8 = 512 bytes;
// - every thread waits on the mbarrier (try_wait.parity loop, no cluster
//   barrier), then reads its lines' partials of the 4 CTAs (16 loads) and
//   combines them in rank order.

// CHECK:       llvm.mlir.global internal @__blk_cluster_mbar_columns() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<16 x i8>
// CHECK-NEXT:  llvm.mlir.global internal @__blk_cluster_columns() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<512 x i8>
// CHECK-LABEL: func.func @columns
// CHECK:         %[[CLUSTER:.*]] = llvm.mlir.addressof @__blk_cluster_columns : !llvm.ptr<3>
// CHECK:         %[[MBAR:.*]] = llvm.mlir.addressof @__blk_cluster_mbar_columns : !llvm.ptr<3>
// CHECK:         %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x range <i32, 0, {{[0-9]+}}> : i32
// CHECK:         %[[RANK:.*]] = nvvm.read.ptx.sreg.cluster.ctarank range <i32, 0, {{[0-9]+}}> : i32
// CHECK:         %[[COUNT:.*]] = llvm.alloca
// CHECK-NEXT:    %[[T0:.*]] = arith.cmpi eq, %[[TID]], %c0_i32 : i32
// CHECK-NEXT:    scf.if %[[T0]] {
// CHECK-COUNT-2:   llvm.inline_asm has_side_effects "mbarrier.init.shared::cta.b64 [$0], 1;"
// CHECK-NEXT:      llvm.inline_asm has_side_effects "fence.mbarrier_init.release.cluster;"
// CHECK-NEXT:    }
// CHECK-NEXT:    nvvm.cluster.arrive
// CHECK-NEXT:    nvvm.cluster.wait
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
// CHECK-NEXT:    %[[N:.*]] = llvm.load %[[COUNT]] : !llvm.ptr -> i32
// CHECK-NEXT:    %[[NEXT:.*]] = arith.addi %[[N]], %c1_i32 : i32
// CHECK-NEXT:    llvm.store %[[NEXT]], %[[COUNT]] : i32, !llvm.ptr
// CHECK-NEXT:    %[[HALF:.*]] = arith.andi %[[N]], %c1_i32 : i32
// CHECK-NEXT:    %[[SHIFTED:.*]] = arith.shrui %[[N]], %c1_i32 : i32
// CHECK-NEXT:    %[[PARITY:.*]] = arith.andi %[[SHIFTED]], %c1_i32 : i32
// CHECK-NEXT:    nvvm.barrier0
// CHECK-NEXT:    scf.if %[[T0]] {
// CHECK-NEXT:      %[[XBAR:.*]] = llvm.getelementptr %[[MBAR]][%[[HALF]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i64
// CHECK-NEXT:      %[[XADDR:.*]] = llvm.ptrtoint %[[XBAR]] : !llvm.ptr<3> to i32
// CHECK-NEXT:      llvm.inline_asm has_side_effects "mbarrier.arrive.expect_tx.shared::cta.b64 _, [$0], $1;", "r,r" %[[XADDR]], %c128_i32 : (i32, i32) -> ()
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[SENDER:.*]] = arith.cmpi ult, %[[POS]], %c4_i32 : i32
// CHECK-NEXT:    scf.if %[[SENDER]] {
// CHECK:           %[[SLOT:.*]] = llvm.getelementptr %[[CLUSTER]][%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
// CHECK-NEXT:      %[[REMOTE:.*]] = nvvm.mapa %[[SLOT]], %[[POS]] : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK-NEXT:      %[[LBAR:.*]] = llvm.getelementptr %[[MBAR]][%[[HALF]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i64
// CHECK-NEXT:      %[[RBAR:.*]] = nvvm.mapa %[[LBAR]], %[[POS]] : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK-NEXT:      %[[BITS:.*]] = llvm.bitcast %{{.*}} : f32 to i32
// CHECK-NEXT:      %[[RADDR:.*]] = llvm.ptrtoint %[[REMOTE]] : !llvm.ptr<7> to i32
// CHECK-NEXT:      %[[RBARADDR:.*]] = llvm.ptrtoint %[[RBAR]] : !llvm.ptr<7> to i32
// CHECK-NEXT:      llvm.inline_asm has_side_effects "st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [$0], $1, [$2];", "r,r,r" %[[RADDR]], %[[BITS]], %[[RBARADDR]] : (i32, i32, i32) -> ()
// CHECK-COUNT-3:   st.async.shared::cluster.mbarrier::complete_tx::bytes.b32
// CHECK-NOT:       st.async
// CHECK:         }
// CHECK-NEXT:    %[[WBAR:.*]] = llvm.getelementptr %[[MBAR]][%[[HALF]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i64
// CHECK-NEXT:    %[[WADDR:.*]] = llvm.ptrtoint %[[WBAR]] : !llvm.ptr<3> to i32
// CHECK-NEXT:    scf.while : () -> () {
// CHECK-NEXT:      {{.*}} = llvm.inline_asm has_side_effects "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [$1], $2; selp.u32 $0, 1, 0, p; }", "=r,r,r" %[[WADDR]], %[[PARITY]] : (i32, i32) -> i32
// CHECK:         } do {
// CHECK-NEXT:      scf.yield
// CHECK-NEXT:    }
// CHECK-COUNT-16: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK-NOT:     nvvm.mapa
// CHECK-NOT:     st.async
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
// each thread's registers and lanes, nothing crosses the cluster (no
// mbarrier either).
// CHECK-LABEL: func.func @rows
// CHECK-NOT:     nvvm.mapa
// CHECK-NOT:     mbarrier
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
// (position and position + 2): 2 x 4 st.async (4 column partials), each
// with the mapa'd slot and mbarrier, unguarded (only thread 0's expect_tx
// of 4 CTAs x 256 lines x 4 bytes = 4096 bytes sits in an scf.if).
// CHECK:         llvm.mlir.global internal @__blk_cluster_mbar_wide() {{.*}} : !llvm.array<16 x i8>
// CHECK-LABEL: func.func @wide
// CHECK:         %[[COUNT:.*]] = llvm.alloca
// CHECK:         mbarrier.init.shared::cta.b64
// CHECK:         nvvm.cluster.arrive
// CHECK-NEXT:    nvvm.cluster.wait
// CHECK-NOT:     nvvm.cluster
// CHECK:         llvm.load %[[COUNT]] : !llvm.ptr -> i32
// CHECK:         nvvm.barrier0
// CHECK-NEXT:    scf.if
// CHECK-NEXT:      llvm.getelementptr
// CHECK-NEXT:      llvm.ptrtoint
// CHECK-NEXT:      "mbarrier.arrive.expect_tx.shared::cta.b64 _, [$0], $1;", "r,r" %{{.*}}, %c4096_i32
// CHECK-NEXT:    }
// CHECK-NOT:     scf.if
// CHECK-COUNT-16: nvvm.mapa
// CHECK-NOT:     nvvm.mapa
// CHECK-NOT:     scf.if
// CHECK-NOT:     nvvm.cluster
// CHECK:         scf.while
// CHECK-NOT:     st.async
// CHECK-NOT:     nvvm.cluster
// CHECK:         nvvm.cluster.arrive
// CHECK-NEXT:    nvvm.cluster.wait
// CHECK-NEXT:    return
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
