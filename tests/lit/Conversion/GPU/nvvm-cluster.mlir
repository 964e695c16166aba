// RUN: blockjit-opt %s --blk-assign-layouts="num-warps=4 num-ctas=2" \
// RUN:   --convert-blk-to-nvvm --canonicalize --cse | FileCheck %s

// convert-blk-to-nvvm on a program that runs on a cluster of 2 CTAs, each
// holding 2048 of the 4096 elements:
// - program_id / num_programs are the cluster's (%clusterid, %nclusterid);
// - %cluster_ctarank is read with its range, 0 to 2, and %tid.x with 0 to 128;
// - the CTAs take turns tile by tile (tiles of 4 x 128 = 512 elements):
//   make_range's element k of thread t is t * 4 + %cluster_ctarank * 512
//   plus (k / 4) * 1024 + k % 4;
// - at entry, thread 0 initializes the two mbarriers of
//   @__blk_cluster_mbar_row (one per half of the buffer, 8 bytes each, one
//   expected arrival) and fences the init to the cluster
//   (fence.mbarrier_init), before the entry cluster barrier publishes them;
// - the max combines in-thread, across lanes, across warps (a half of
//   @__blk_warp_exchange_row, one barrier, as on one CTA), then across the
//   cluster. The exchange counter n (a local
//   variable, + 1 per exchange) picks the half n & 1 of the buffer and of
//   the mbarriers, and the parity (n >> 1) & 1 of that mbarrier's phase.
//   A CTA barrier (no thread still reads this half's slots), then thread 0
//   expects 8 bytes on its mbarrier (mbarrier.arrive.expect_tx: 2 CTAs x 4
//   bytes); threads 0 and 1 send the CTA's value with st.async into slot
//   [half][rank] of CTA 0's and CTA 1's buffer, counted on that CTA's
//   mbarrier (both addresses mapa'd to shared::cluster, address space 7,
//   then made 32-bit); every thread spins on mbarrier.try_wait.parity until
//   the bytes arrived, then combines the 2 slots from its own shared memory
//   in rank order. No cluster barrier per exchange;
// - a cluster barrier at entry (no CTA writes to one that has not started,
//   and the mbarriers are initialized) and before the return (none exits
//   while another may write to it);
// - the scalar store runs in thread 0 of CTA 0 only.

// CHECK:       llvm.mlir.global internal @__blk_cluster_mbar_row() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<16 x i8>
// CHECK-NEXT:  llvm.mlir.global internal @__blk_cluster_row() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<32 x i8>
// CHECK-NEXT:  llvm.mlir.global internal @__blk_warp_exchange_row() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<32 x i8>
// CHECK-LABEL: func.func @row
// CHECK:         %[[CLUSTER:.*]] = llvm.mlir.addressof @__blk_cluster_row : !llvm.ptr<3>
// CHECK:         %[[MBAR:.*]] = llvm.mlir.addressof @__blk_cluster_mbar_row : !llvm.ptr<3>
// CHECK:         %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x range <i32, 0, 128> : i32
// CHECK-NEXT:    %[[RANK:.*]] = nvvm.read.ptx.sreg.cluster.ctarank range <i32, 0, 2> : i32
// CHECK-NEXT:    %[[FIRST:.*]] = arith.cmpi eq, %[[RANK]], %c0_i32 : i32
// CHECK-NEXT:    %[[COUNT:.*]] = llvm.alloca %{{.*}} x i32 : (i64) -> !llvm.ptr
// CHECK-NEXT:    %[[T0:.*]] = arith.cmpi eq, %[[TID]], %c0_i32 : i32
// CHECK-NEXT:    scf.if %[[T0]] {
// CHECK-NEXT:      %[[INIT0:.*]] = llvm.ptrtoint %[[MBAR]] : !llvm.ptr<3> to i32
// CHECK-NEXT:      llvm.inline_asm has_side_effects "mbarrier.init.shared::cta.b64 [$0], 1;", "r" %[[INIT0]] : (i32) -> ()
// CHECK-NEXT:      %[[MBAR1:.*]] = llvm.getelementptr %[[MBAR]][1] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i64
// CHECK-NEXT:      %[[INIT1:.*]] = llvm.ptrtoint %[[MBAR1]] : !llvm.ptr<3> to i32
// CHECK-NEXT:      llvm.inline_asm has_side_effects "mbarrier.init.shared::cta.b64 [$0], 1;", "r" %[[INIT1]] : (i32) -> ()
// CHECK-NEXT:      llvm.inline_asm has_side_effects "fence.mbarrier_init.release.cluster;", "" : () -> ()
// CHECK-NEXT:    }
// CHECK-NEXT:    nvvm.cluster.arrive
// CHECK-NEXT:    nvvm.cluster.wait
// CHECK-NEXT:    llvm.store %c0_i32, %[[COUNT]] : i32, !llvm.ptr
// CHECK-NEXT:    %[[PID:.*]] = nvvm.read.ptx.sreg.clusterid.x : i32
// CHECK-NEXT:    %[[NP:.*]] = nvvm.read.ptx.sreg.nclusterid.x : i32
// CHECK:         %[[T4:.*]] = arith.muli %[[TID]], %c4_i32 : i32
// CHECK-NEXT:    %[[TURN:.*]] = arith.muli %[[RANK]], %c512_i32 : i32
// CHECK-NEXT:    %[[BASE:.*]] = arith.addi %[[T4]], %[[TURN]] : i32
// CHECK-NEXT:    arith.addi %[[BASE]], %c1024_i32 : i32
// CHECK:         llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK:         nvvm.shfl.sync  bfly
// CHECK:         nvvm.barrier0
// CHECK-NEXT:    llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// CHECK-COUNT-3: arith.maximumf
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
// CHECK-NEXT:      llvm.inline_asm has_side_effects "mbarrier.arrive.expect_tx.shared::cta.b64 _, [$0], $1;", "r,r" %[[XADDR]], %c8_i32 : (i32, i32) -> ()
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[WRITER:.*]] = arith.cmpi ult, %[[TID]], %c2_i32 : i32
// CHECK-NEXT:    scf.if %[[WRITER]] {
// CHECK:           %[[LOCAL:.*]] = llvm.getelementptr %[[CLUSTER]][%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
// CHECK-NEXT:      %[[REMOTE:.*]] = nvvm.mapa %[[LOCAL]], %[[TID]] : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK-NEXT:      %[[LBAR:.*]] = llvm.getelementptr %[[MBAR]][%[[HALF]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i64
// CHECK-NEXT:      %[[RBAR:.*]] = nvvm.mapa %[[LBAR]], %[[TID]] : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK-NEXT:      %[[BITS:.*]] = llvm.bitcast %{{.*}} : f32 to i32
// CHECK-NEXT:      %[[RADDR:.*]] = llvm.ptrtoint %[[REMOTE]] : !llvm.ptr<7> to i32
// CHECK-NEXT:      %[[RBARADDR:.*]] = llvm.ptrtoint %[[RBAR]] : !llvm.ptr<7> to i32
// CHECK-NEXT:      llvm.inline_asm has_side_effects "st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [$0], $1, [$2];", "r,r,r" %[[RADDR]], %[[BITS]], %[[RBARADDR]] : (i32, i32, i32) -> ()
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[WBAR:.*]] = llvm.getelementptr %[[MBAR]][%[[HALF]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i64
// CHECK-NEXT:    %[[WADDR:.*]] = llvm.ptrtoint %[[WBAR]] : !llvm.ptr<3> to i32
// CHECK-NEXT:    scf.while : () -> () {
// CHECK-NEXT:      %[[DONE:.*]] = llvm.inline_asm has_side_effects "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [$1], $2; selp.u32 $0, 1, 0, p; }", "=r,r,r" %[[WADDR]], %[[PARITY]] : (i32, i32) -> i32
// CHECK-NEXT:      %[[PENDING:.*]] = arith.cmpi eq, %[[DONE]], %c0_i32 : i32
// CHECK-NEXT:      scf.condition(%[[PENDING]])
// CHECK-NEXT:    } do {
// CHECK-NEXT:      scf.yield
// CHECK-NEXT:    }
// CHECK-NOT:     nvvm.cluster
// CHECK:         llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK:         llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK:         arith.maximumf
// CHECK-NOT:     nvvm.cluster
// CHECK-NOT:     nvvm.mapa
// CHECK:         %[[LEADER:.*]] = arith.andi %[[T0]], %[[FIRST]] : i1
// CHECK-NEXT:    scf.if %[[LEADER]] {
// CHECK-NEXT:      blk.store
// CHECK-NEXT:    }
// CHECK-NEXT:    nvvm.cluster.arrive
// CHECK-NEXT:    nvvm.cluster.wait
// CHECK-NEXT:    return
func.func @row(%out: !blk.ptr<f32> {blk.divisibility = 16 : i32}, %in: !blk.ptr<f32> {blk.divisibility = 16 : i32}, %flag: !blk.ptr<i32> {blk.divisibility = 16 : i32}) {
  %pid = blk.program_id 0 : i32
  %np = blk.num_programs 0 : i32
  %r = blk.make_range 0 to 4096 : tensor<4096xi32>
  %p = blk.splat %in : !blk.ptr<f32> -> tensor<4096x!blk.ptr<f32>>
  %ptrs = blk.addptr %p, %r : tensor<4096x!blk.ptr<f32>>, tensor<4096xi32>
  %x = blk.load %ptrs : tensor<4096x!blk.ptr<f32>>
  %m = blk.reduce max %x axis = 0 : tensor<4096xf32> -> f32
  %ms = blk.splat %m : f32 -> tensor<4096xf32>
  %d = arith.subf %x, %ms : tensor<4096xf32>
  %q = blk.splat %out : !blk.ptr<f32> -> tensor<4096x!blk.ptr<f32>>
  %qs = blk.addptr %q, %r : tensor<4096x!blk.ptr<f32>>, tensor<4096xi32>
  blk.store %qs, %d : tensor<4096x!blk.ptr<f32>>
  %t = arith.addi %pid, %np : i32
  blk.store %flag, %t : !blk.ptr<i32>
  return
}
