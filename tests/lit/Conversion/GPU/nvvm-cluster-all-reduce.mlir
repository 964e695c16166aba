// RUN: blockjit-opt %s --split-input-file --blk-assign-layouts="num-warps=4 num-ctas=4" \
// RUN:   --convert-blk-to-nvvm --canonicalize --cse | FileCheck %s

// blkgpu.all_reduce down the columns of a 2048x8 f32 block split over a
// cluster of 4 CTAs (4 warps, vector 4; docs/LAYOUTS.md). The row index's
// bits lie in thread bits 1-6, CTA bits 0-1 and register bits 2-4: each
// thread combines 8 registers per column it holds (4 partials), then
// shuffles (offsets 2, 4, 8, 16), then warps through the scratch array
// (each writer's 4 partials side by side: one vector<4xf32> store, one
// vector<4xf32> load per warp), then the cluster:
// - at entry, thread 0 initializes the two mbarriers of
//   @__blk_cluster_mbar_columns and fences the init, before the entry
//   cluster barrier;
// - the thread's lines are its thread bits without the axis's (tid & 1,
//   tid >> 7: 2 writers x 4 columns = 8 lines per CTA) and its position
//   along the axis (tid & 126) >> 1;
// - the exchange counter n steps (half n & 1, mbarrier parity
//   (n >> 1) & 1); after a CTA barrier, thread 0 expects 128 bytes on the
//   half's mbarrier (4 CTAs x 2 writers x one 16-byte run of 4 words);
//   positions 0-3 each send their 4 partials, bitcast to i32, as one
//   st.async .v4.b32 to CTA `position` (the slot and the mbarrier mapa'd
//   to shared::cluster addresses), into slot tuple = (rank * 2 + lines) * 2
//   (clusterLineSlots(4) = 2 slots a tuple), which is even: byte
//   ((tuple & ~1) + half) * 16 + (tuple & 1) * 8 = (tuple + half) * 16,
//   16-byte aligned. Each half holds 4 CTAs x 2 writers x 2 slots = 16
//   slots: 2 x 16 x 8 = 256 bytes;
// - every thread waits on the mbarrier (try_wait.parity loop, no cluster
//   barrier), then reads its lines' run from each of the 4 CTAs (rank
//   (rank & ~3) | sub, sub = 0..3: one vector<4xi32> load, align 16, each),
//   bitcasts the words back to f32 and combines them per column in rank
//   order.

// CHECK:       llvm.mlir.global internal @__blk_cluster_mbar_columns() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<16 x i8>
// CHECK-NEXT:  llvm.mlir.global internal @__blk_cluster_columns() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<256 x i8>
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
// CHECK:         llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
// CHECK:         nvvm.barrier0
// CHECK-COUNT-4: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// CHECK-NOT:     llvm.load
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
// CHECK-NEXT:      %[[W0:.*]] = llvm.bitcast %{{.*}} : f32 to i32
// CHECK-NEXT:      %[[W1:.*]] = llvm.bitcast %{{.*}} : f32 to i32
// CHECK-NEXT:      %[[W2:.*]] = llvm.bitcast %{{.*}} : f32 to i32
// CHECK-NEXT:      %[[W3:.*]] = llvm.bitcast %{{.*}} : f32 to i32
// CHECK-NEXT:      %[[RW:.*]] = arith.muli %[[RANK]], %c2_i32 : i32
// CHECK-NEXT:      %[[RWL:.*]] = arith.addi %[[RW]], %[[LINES]] : i32
// CHECK-NEXT:      %[[TUPLE:.*]] = arith.muli %[[RWL]], %c2_i32 : i32
// CHECK-NEXT:      %[[EVEN:.*]] = arith.andi %[[TUPLE]], %c-2_i32 : i32
// CHECK-NEXT:      %[[BLOCK:.*]] = arith.addi %[[EVEN]], %[[HALF]] : i32
// CHECK-NEXT:      %[[ODD:.*]] = arith.andi %[[TUPLE]], %c1_i32 : i32
// CHECK-NEXT:      %[[INBLOCK:.*]] = arith.muli %[[ODD]], %c8_i32 : i32
// CHECK-NEXT:      %[[BLOCKBYTES:.*]] = arith.muli %[[BLOCK]], %c16_i32 : i32
// CHECK-NEXT:      %[[OFFSET:.*]] = arith.addi %[[BLOCKBYTES]], %[[INBLOCK]] : i32
// CHECK-NEXT:      %[[SLOT:.*]] = llvm.getelementptr %[[CLUSTER]][%[[OFFSET]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
// CHECK-NEXT:      %[[REMOTE:.*]] = nvvm.mapa %[[SLOT]], %[[POS]] : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK-NEXT:      %[[LBAR:.*]] = llvm.getelementptr %[[MBAR]][%[[HALF]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i64
// CHECK-NEXT:      %[[RBAR:.*]] = nvvm.mapa %[[LBAR]], %[[POS]] : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK-NEXT:      %[[RADDR:.*]] = llvm.ptrtoint %[[REMOTE]] : !llvm.ptr<7> to i32
// CHECK-NEXT:      %[[RBARADDR:.*]] = llvm.ptrtoint %[[RBAR]] : !llvm.ptr<7> to i32
// CHECK-NEXT:      llvm.inline_asm has_side_effects "st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.b32 [$0], {$1, $2, $3, $4}, [$5];", "r,r,r,r,r,r" %[[RADDR]], %[[W0]], %[[W1]], %[[W2]], %[[W3]], %[[RBARADDR]] : (i32, i32, i32, i32, i32, i32) -> ()
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[WBAR:.*]] = llvm.getelementptr %[[MBAR]][%[[HALF]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i64
// CHECK-NEXT:    %[[WADDR:.*]] = llvm.ptrtoint %[[WBAR]] : !llvm.ptr<3> to i32
// CHECK-NEXT:    scf.while : () -> () {
// CHECK-NEXT:      {{.*}} = llvm.inline_asm has_side_effects "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [$1], $2; selp.u32 $0, 1, 0, p; }", "=r,r,r" %[[WADDR]], %[[PARITY]] : (i32, i32) -> i32
// CHECK:         } do {
// CHECK-NEXT:      scf.yield
// CHECK-NEXT:    }
// Rank (rank & ~3) | 0: its run at the same slot arithmetic, one aligned
// vector load, the words bitcast back.
// CHECK-NEXT:    %[[OTHERS:.*]] = arith.andi %[[RANK]], %c-4_i32 : i32
// CHECK-NEXT:    %[[R0W:.*]] = arith.muli %[[OTHERS]], %c2_i32 : i32
// CHECK-NEXT:    %[[R0WL:.*]] = arith.addi %[[R0W]], %[[LINES]] : i32
// CHECK-NEXT:    %[[R0TUPLE:.*]] = arith.muli %[[R0WL]], %c2_i32 : i32
// CHECK-NEXT:    %[[R0EVEN:.*]] = arith.andi %[[R0TUPLE]], %c-2_i32 : i32
// CHECK-NEXT:    %[[R0BLOCK:.*]] = arith.addi %[[R0EVEN]], %[[HALF]] : i32
// CHECK-NEXT:    %[[R0ODD:.*]] = arith.andi %[[R0TUPLE]], %c1_i32 : i32
// CHECK-NEXT:    %[[R0IN:.*]] = arith.muli %[[R0ODD]], %c8_i32 : i32
// CHECK-NEXT:    %[[R0BYTES:.*]] = arith.muli %[[R0BLOCK]], %c16_i32 : i32
// CHECK-NEXT:    %[[R0OFF:.*]] = arith.addi %[[R0BYTES]], %[[R0IN]] : i32
// CHECK-NEXT:    %[[R0PTR:.*]] = llvm.getelementptr %[[CLUSTER]][%[[R0OFF]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
// CHECK-NEXT:    %[[R0V:.*]] = llvm.load %[[R0PTR]] {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xi32>
// CHECK-NEXT:    %[[R0E0:.*]] = llvm.extractelement %[[R0V]][%c0_i32 : i32] : vector<4xi32>
// CHECK-NEXT:    %[[R0E1:.*]] = llvm.extractelement %[[R0V]][%c1_i32 : i32] : vector<4xi32>
// CHECK-NEXT:    %[[R0E2:.*]] = llvm.extractelement %[[R0V]][%c2_i32 : i32] : vector<4xi32>
// CHECK-NEXT:    %[[R0E3:.*]] = llvm.extractelement %[[R0V]][%c3_i32 : i32] : vector<4xi32>
// CHECK-NEXT:    %[[R0G0:.*]] = llvm.bitcast %[[R0E0]] : i32 to f32
// CHECK-NEXT:    %[[R0G1:.*]] = llvm.bitcast %[[R0E1]] : i32 to f32
// CHECK-NEXT:    %[[R0G2:.*]] = llvm.bitcast %[[R0E2]] : i32 to f32
// CHECK-NEXT:    %[[R0G3:.*]] = llvm.bitcast %[[R0E3]] : i32 to f32
// Ranks | 1, | 2, | 3 in turn: each rank's words, then each group's
// running max takes its word.
// CHECK-NEXT:    %[[RANK1:.*]] = arith.ori %[[OTHERS]], %c1_i32 : i32
// CHECK-NEXT:    %[[R1W:.*]] = arith.muli %[[RANK1]], %c2_i32 : i32
// CHECK-NEXT:    %[[R1WL:.*]] = arith.addi %[[R1W]], %[[LINES]] : i32
// CHECK-NEXT:    arith.muli %[[R1WL]], %c2_i32 : i32
// CHECK:         %[[R1V:.*]] = llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xi32>
// CHECK-NEXT:    %[[R1E0:.*]] = llvm.extractelement %[[R1V]][%c0_i32 : i32] : vector<4xi32>
// CHECK-NEXT:    %[[R1E1:.*]] = llvm.extractelement %[[R1V]][%c1_i32 : i32] : vector<4xi32>
// CHECK-NEXT:    %[[R1E2:.*]] = llvm.extractelement %[[R1V]][%c2_i32 : i32] : vector<4xi32>
// CHECK-NEXT:    %[[R1E3:.*]] = llvm.extractelement %[[R1V]][%c3_i32 : i32] : vector<4xi32>
// CHECK-NEXT:    %[[R1G0:.*]] = llvm.bitcast %[[R1E0]] : i32 to f32
// CHECK-NEXT:    %[[R1G1:.*]] = llvm.bitcast %[[R1E1]] : i32 to f32
// CHECK-NEXT:    %[[R1G2:.*]] = llvm.bitcast %[[R1E2]] : i32 to f32
// CHECK-NEXT:    %[[R1G3:.*]] = llvm.bitcast %[[R1E3]] : i32 to f32
// CHECK-NEXT:    %[[M1G0:.*]] = arith.maximumf %[[R0G0]], %[[R1G0]] : f32
// CHECK-NEXT:    %[[M1G1:.*]] = arith.maximumf %[[R0G1]], %[[R1G1]] : f32
// CHECK-NEXT:    %[[M1G2:.*]] = arith.maximumf %[[R0G2]], %[[R1G2]] : f32
// CHECK-NEXT:    %[[M1G3:.*]] = arith.maximumf %[[R0G3]], %[[R1G3]] : f32
// CHECK-NEXT:    %[[RANK2:.*]] = arith.ori %[[OTHERS]], %c2_i32 : i32
// CHECK-NEXT:    %[[R2W:.*]] = arith.muli %[[RANK2]], %c2_i32 : i32
// CHECK-NEXT:    %[[R2WL:.*]] = arith.addi %[[R2W]], %[[LINES]] : i32
// CHECK-NEXT:    arith.muli %[[R2WL]], %c2_i32 : i32
// CHECK:         %[[R2V:.*]] = llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xi32>
// CHECK-NEXT:    %[[R2E0:.*]] = llvm.extractelement %[[R2V]][%c0_i32 : i32] : vector<4xi32>
// CHECK-NEXT:    %[[R2E1:.*]] = llvm.extractelement %[[R2V]][%c1_i32 : i32] : vector<4xi32>
// CHECK-NEXT:    %[[R2E2:.*]] = llvm.extractelement %[[R2V]][%c2_i32 : i32] : vector<4xi32>
// CHECK-NEXT:    %[[R2E3:.*]] = llvm.extractelement %[[R2V]][%c3_i32 : i32] : vector<4xi32>
// CHECK-NEXT:    %[[R2G0:.*]] = llvm.bitcast %[[R2E0]] : i32 to f32
// CHECK-NEXT:    %[[R2G1:.*]] = llvm.bitcast %[[R2E1]] : i32 to f32
// CHECK-NEXT:    %[[R2G2:.*]] = llvm.bitcast %[[R2E2]] : i32 to f32
// CHECK-NEXT:    %[[R2G3:.*]] = llvm.bitcast %[[R2E3]] : i32 to f32
// CHECK-NEXT:    %[[M2G0:.*]] = arith.maximumf %[[M1G0]], %[[R2G0]] : f32
// CHECK-NEXT:    %[[M2G1:.*]] = arith.maximumf %[[M1G1]], %[[R2G1]] : f32
// CHECK-NEXT:    %[[M2G2:.*]] = arith.maximumf %[[M1G2]], %[[R2G2]] : f32
// CHECK-NEXT:    %[[M2G3:.*]] = arith.maximumf %[[M1G3]], %[[R2G3]] : f32
// CHECK-NEXT:    %[[RANK3:.*]] = arith.ori %[[OTHERS]], %c3_i32 : i32
// CHECK-NEXT:    %[[R3W:.*]] = arith.muli %[[RANK3]], %c2_i32 : i32
// CHECK-NEXT:    %[[R3WL:.*]] = arith.addi %[[R3W]], %[[LINES]] : i32
// CHECK-NEXT:    arith.muli %[[R3WL]], %c2_i32 : i32
// CHECK:         %[[R3V:.*]] = llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xi32>
// CHECK-NEXT:    %[[R3E0:.*]] = llvm.extractelement %[[R3V]][%c0_i32 : i32] : vector<4xi32>
// CHECK-NEXT:    %[[R3E1:.*]] = llvm.extractelement %[[R3V]][%c1_i32 : i32] : vector<4xi32>
// CHECK-NEXT:    %[[R3E2:.*]] = llvm.extractelement %[[R3V]][%c2_i32 : i32] : vector<4xi32>
// CHECK-NEXT:    %[[R3E3:.*]] = llvm.extractelement %[[R3V]][%c3_i32 : i32] : vector<4xi32>
// CHECK-NEXT:    %[[R3G0:.*]] = llvm.bitcast %[[R3E0]] : i32 to f32
// CHECK-NEXT:    %[[R3G1:.*]] = llvm.bitcast %[[R3E1]] : i32 to f32
// CHECK-NEXT:    %[[R3G2:.*]] = llvm.bitcast %[[R3E2]] : i32 to f32
// CHECK-NEXT:    %[[R3G3:.*]] = llvm.bitcast %[[R3E3]] : i32 to f32
// CHECK-NEXT:    %{{.*}} = arith.maximumf %[[M2G0]], %[[R3G0]] : f32
// CHECK-NEXT:    %{{.*}} = arith.maximumf %[[M2G1]], %[[R3G1]] : f32
// CHECK-NEXT:    %{{.*}} = arith.maximumf %[[M2G2]], %[[R3G2]] : f32
// CHECK-NEXT:    %{{.*}} = arith.maximumf %[[M2G3]], %[[R3G3]] : f32
// CHECK-NOT:     llvm.load
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
// (position and position + 2): its 4 column partials packed in one
// st.async .v4.b32 per target, 2 in all, each with the mapa'd slot and
// mbarrier (the slot's address is the same for both targets: 4 mapa),
// unguarded (only thread 0's expect_tx sits in an scf.if: 4 CTAs x 64
// writers x one 16-byte run = 4096 bytes). Each half holds 4 CTAs x 64
// writers x 2 slots = 512 slots: 2 x 512 x 8 = 8192 bytes of cluster
// buffer. Readers load each of the 4 ranks' runs as one vector<4xi32>.
// CHECK:         llvm.mlir.global internal @__blk_cluster_mbar_wide() {{.*}} : !llvm.array<16 x i8>
// CHECK-NEXT:    llvm.mlir.global internal @__blk_cluster_wide() {{.*}} : !llvm.array<8192 x i8>
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
// CHECK-COUNT-2: nvvm.mapa
// CHECK-NEXT:    llvm.ptrtoint
// CHECK-NEXT:    llvm.ptrtoint
// CHECK-NEXT:    "st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.b32 [$0], {$1, $2, $3, $4}, [$5];", "r,r,r,r,r,r"
// CHECK-NEXT:    arith.addi %{{.*}}, %c2_i32 : i32
// CHECK-NEXT:    nvvm.mapa
// CHECK-NEXT:    nvvm.mapa
// CHECK-NEXT:    llvm.ptrtoint
// CHECK-NEXT:    llvm.ptrtoint
// CHECK-NEXT:    "st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.b32 [$0], {$1, $2, $3, $4}, [$5];", "r,r,r,r,r,r"
// CHECK-NOT:     nvvm.mapa
// CHECK-NOT:     scf.if
// CHECK-NOT:     nvvm.cluster
// CHECK:         scf.while
// CHECK-COUNT-4: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xi32>
// CHECK-NOT:     llvm.load
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

// -----

// i16 partials (an integer reduction accumulates in its own type) travel
// widened to 32-bit words: 2048x16 i16 on 4 warps takes vectors of 8
// (16 bytes), so a thread holds 8 columns' partials (2 writers a CTA), sent
// as two st.async .v4.b32 runs (slots tuple and tuple + 2) of arith.extui'd
// words: 4 CTAs x 2 writers x 32 bytes = 256 bytes expected, 4 x 2 x 4
// slots a half = 512 bytes of buffer; read back as two vector<4xi32> loads
// from each of the 4 CTAs and truncated to i16 before they combine.
// CHECK:         llvm.mlir.global internal @__blk_cluster_narrow_ints() {{.*}} : !llvm.array<512 x i8>
// CHECK-LABEL: func.func @narrow_ints
// CHECK:         "mbarrier.arrive.expect_tx.shared::cta.b64 _, [$0], $1;", "r,r" %{{.*}}, %c256_i32
// CHECK:         scf.if
// CHECK-NEXT:      %[[W0:.*]] = arith.extui %{{.*}} : i16 to i32
// CHECK-NEXT:      %[[W1:.*]] = arith.extui %{{.*}} : i16 to i32
// CHECK-NEXT:      %[[W2:.*]] = arith.extui %{{.*}} : i16 to i32
// CHECK-NEXT:      %[[W3:.*]] = arith.extui %{{.*}} : i16 to i32
// CHECK-NEXT:      %[[W4:.*]] = arith.extui %{{.*}} : i16 to i32
// CHECK-NEXT:      %[[W5:.*]] = arith.extui %{{.*}} : i16 to i32
// CHECK-NEXT:      %[[W6:.*]] = arith.extui %{{.*}} : i16 to i32
// CHECK-NEXT:      %[[W7:.*]] = arith.extui %{{.*}} : i16 to i32
// CHECK:           "st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.b32 [$0], {$1, $2, $3, $4}, [$5];", "r,r,r,r,r,r" %{{.*}}, %[[W0]], %[[W1]], %[[W2]], %[[W3]], %{{.*}}
// CHECK:           "st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.b32 [$0], {$1, $2, $3, $4}, [$5];", "r,r,r,r,r,r" %{{.*}}, %[[W4]], %[[W5]], %[[W6]], %[[W7]], %{{.*}}
// CHECK-NOT:     st.async
// CHECK:         scf.while
// CHECK-COUNT-8: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xi32>
// CHECK-NOT:     llvm.load
// CHECK:         arith.trunci %{{.*}} : i32 to i16
// CHECK:         arith.maxsi %{{.*}}, %{{.*}} : i16
func.func @narrow_ints(%in: !blk.ptr<i16> {blk.divisibility = 16 : i32}) {
  %r = blk.make_range 0 to 32768 : tensor<32768xi32>
  %r2 = blk.reshape %r : tensor<32768xi32> -> tensor<2048x16xi32>
  %p = blk.splat %in : !blk.ptr<i16> -> tensor<2048x16x!blk.ptr<i16>>
  %pp = blk.addptr %p, %r2 : tensor<2048x16x!blk.ptr<i16>>, tensor<2048x16xi32>
  %x = blk.load %pp : tensor<2048x16x!blk.ptr<i16>>
  %m = blkgpu.all_reduce max %x axis = 0 : tensor<2048x16xi16>
  blk.store %pp, %m : tensor<2048x16x!blk.ptr<i16>>
  return
}

// -----

// Two columns (vector 2): a thread's 2 partials go in one st.async .v2.b32
// into one 8-byte slot (clusterLineSlots(2) = 1) and come back as one
// vector<2xi32> load a CTA: 4 CTAs x 1 writer x 8 bytes = 32 bytes
// expected, 2 x 4 slots x 8 = 64 bytes of buffer.
// CHECK:         llvm.mlir.global internal @__blk_cluster_pairs() {{.*}} : !llvm.array<64 x i8>
// CHECK-LABEL: func.func @pairs
// CHECK:         "mbarrier.arrive.expect_tx.shared::cta.b64 _, [$0], $1;", "r,r" %{{.*}}, %c32_i32
// CHECK:         "st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.b32 [$0], {$1, $2}, [$3];", "r,r,r,r"
// CHECK-NOT:     st.async
// CHECK:         scf.while
// CHECK-COUNT-4: llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr<3> -> vector<2xi32>
// CHECK-NOT:     llvm.load %{{.*}} -> vector<2xi32>
func.func @pairs(%in: !blk.ptr<f32> {blk.divisibility = 16 : i32}) {
  %r = blk.make_range 0 to 8192 : tensor<8192xi32>
  %r2 = blk.reshape %r : tensor<8192xi32> -> tensor<4096x2xi32>
  %p = blk.splat %in : !blk.ptr<f32> -> tensor<4096x2x!blk.ptr<f32>>
  %pp = blk.addptr %p, %r2 : tensor<4096x2x!blk.ptr<f32>>, tensor<4096x2xi32>
  %x = blk.load %pp : tensor<4096x2x!blk.ptr<f32>>
  %m = blkgpu.all_reduce sum %x axis = 0 : tensor<4096x2xf32>
  blk.store %pp, %m : tensor<4096x2x!blk.ptr<f32>>
  return
}
