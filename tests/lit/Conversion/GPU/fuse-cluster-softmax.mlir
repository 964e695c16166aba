// RUN: blockjit-opt %s --split-input-file --blk-assign-layouts="num-warps=1 num-ctas=2" \
// RUN:   --blk-fuse-cluster-softmax | FileCheck %s
// RUN: blockjit-opt %s --split-input-file --blk-assign-layouts="num-warps=1 num-ctas=2" \
// RUN:   --blk-fuse-cluster-softmax --convert-blk-to-nvvm | FileCheck %s --check-prefix=NVVM
// RUN: blockjit-opt %s --split-input-file --blk-assign-layouts="num-warps=1" \
// RUN:   --blk-fuse-cluster-softmax | FileCheck %s --check-prefix=ONE-CTA

// softmax's max and sum of exp(x - max) over a block split across a cluster
// of 2 (2048 elements: 1024 per CTA) become CTA-local reductions and one
// cluster_softmax_stats; exp(x - max) / sum becomes the CTA's
// exp(x - local max) times rescale / sum.

// CHECK-LABEL: func.func @softmax
// CHECK:         %[[X:.*]] = blk.load
// CHECK-NEXT:    %[[MLOC:.*]] = blk.reduce max %[[X]] axis = 0 {blkgpu.cta_local}
// CHECK:         %[[EMPTY:.*]] = arith.cmpf oeq, %[[MLOC]], %{{.*}} : f32
// CHECK:         %[[OFF:.*]] = arith.select %[[EMPTY]], %{{.*}}, %[[MLOC]] : f32
// CHECK:         %[[D:.*]] = arith.subf %[[X]], %{{.*}}
// CHECK-NEXT:    %[[EL:.*]] = math.exp %[[D]]
// CHECK-NEXT:    %[[SLOC:.*]] = blk.reduce sum %[[EL]] axis = 0 {blkgpu.cta_local}
// CHECK-NEXT:    %[[MAX:.*]], %[[SUM:.*]] = blkgpu.cluster_softmax_stats %[[MLOC]], %[[SLOC]] : f32
// CHECK-NEXT:    %[[SHIFT:.*]] = arith.subf %[[MLOC]], %[[MAX]] : f32
// CHECK-NEXT:    %[[R:.*]] = math.exp %[[SHIFT]] : f32
// CHECK:         %[[RESCALE:.*]] = arith.select %[[EMPTY]], %{{.*}}, %[[R]] : f32
// CHECK-NEXT:    %[[F:.*]] = arith.divf %[[RESCALE]], %[[SUM]] : f32
// CHECK-NEXT:    %[[FB:.*]] = blk.splat %[[F]]
// CHECK-NEXT:    %[[Y:.*]] = arith.mulf %[[EL]], %[[FB]]
// CHECK:         blk.store %{{.*}}, %[[Y]]
// CHECK-NOT:     blk.reduce
// CHECK:         return

// One exchange of the pair: after a CTA barrier, thread 0 expects 16 bytes
// on the half's mbarrier (2 CTAs x 2 f32), the writers send both values to
// every CTA with st.async (mapa of the slot and of the mbarrier), and all
// threads wait on the mbarrier (one try_wait.parity loop); no cluster
// barrier but the entry one (after the mbarrier init) and the exit one.
// NVVM:         llvm.mlir.global internal @__blk_cluster_mbar_softmax() {{.*}} : !llvm.array<16 x i8>
// NVVM-LABEL: func.func @softmax
// NVVM-NEXT:    %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x range <i32, 0, {{[0-9]+}}> : i32
// NVVM-COUNT-2: mbarrier.init.shared::cta.b64 [$0], 1;
// NVVM:         fence.mbarrier_init.release.cluster;
// NVVM:         nvvm.cluster.arrive
// NVVM-NEXT:    nvvm.cluster.wait
// NVVM-NOT:     nvvm.cluster
// NVVM:         nvvm.barrier0
// NVVM-NOT:     nvvm.cluster
// NVVM:         %[[T0:.*]] = arith.cmpi eq, %[[TID]], %{{.*}} : i32
// NVVM-NEXT:    scf.if %[[T0]] {
// NVVM-NEXT:      llvm.mlir.addressof @__blk_cluster_mbar_softmax
// NVVM-NEXT:      %[[XBAR:.*]] = llvm.getelementptr %{{.*}}[%[[HALF:.*]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i64
// NVVM-NEXT:      %[[XADDR:.*]] = llvm.ptrtoint %[[XBAR]] : !llvm.ptr<3> to i32
// NVVM-NEXT:      %[[BYTES:.*]] = arith.constant 16 : i32
// NVVM-NEXT:      "mbarrier.arrive.expect_tx.shared::cta.b64 _, [$0], $1;", "r,r" %[[XADDR]], %[[BYTES]] : (i32, i32) -> ()
// NVVM-NEXT:    }
// NVVM-NOT:     mbarrier.arrive
// NVVM:         %[[SLOT0:.*]] = llvm.getelementptr %{{.*}} : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
// NVVM-NEXT:    %[[SLOT0_R:.*]] = nvvm.mapa %[[SLOT0]], %[[TID]] : !llvm.ptr<3> -> !llvm.ptr<7>
// NVVM-NEXT:    llvm.mlir.addressof @__blk_cluster_mbar_softmax
// NVVM-NEXT:    %[[BAR0:.*]] = llvm.getelementptr %{{.*}}[%[[HALF]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i64
// NVVM-NEXT:    %[[BAR0_R:.*]] = nvvm.mapa %[[BAR0]], %[[TID]] : !llvm.ptr<3> -> !llvm.ptr<7>
// NVVM-NEXT:    %[[BITS0:.*]] = llvm.bitcast %{{.*}} : f32 to i32
// NVVM-NEXT:    %[[SLOT0_A:.*]] = llvm.ptrtoint %[[SLOT0_R]] : !llvm.ptr<7> to i32
// NVVM-NEXT:    %[[BAR0_A:.*]] = llvm.ptrtoint %[[BAR0_R]] : !llvm.ptr<7> to i32
// NVVM-NEXT:    "st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [$0], $1, [$2];", "r,r,r" %[[SLOT0_A]], %[[BITS0]], %[[BAR0_A]]
// NVVM:         %[[SLOT1:.*]] = llvm.getelementptr %{{.*}} : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
// NVVM-NEXT:    %[[SLOT1_R:.*]] = nvvm.mapa %[[SLOT1]], %[[TID]] : !llvm.ptr<3> -> !llvm.ptr<7>
// NVVM-NEXT:    llvm.mlir.addressof @__blk_cluster_mbar_softmax
// NVVM-NEXT:    %[[BAR1:.*]] = llvm.getelementptr %{{.*}}[%[[HALF]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i64
// NVVM-NEXT:    %[[BAR1_R:.*]] = nvvm.mapa %[[BAR1]], %[[TID]] : !llvm.ptr<3> -> !llvm.ptr<7>
// NVVM-NEXT:    %[[BITS1:.*]] = llvm.bitcast %{{.*}} : f32 to i32
// NVVM-NEXT:    %[[SLOT1_A:.*]] = llvm.ptrtoint %[[SLOT1_R]] : !llvm.ptr<7> to i32
// NVVM-NEXT:    %[[BAR1_A:.*]] = llvm.ptrtoint %[[BAR1_R]] : !llvm.ptr<7> to i32
// NVVM-NEXT:    "st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [$0], $1, [$2];", "r,r,r" %[[SLOT1_A]], %[[BITS1]], %[[BAR1_A]]
// NVVM-NOT:     nvvm.mapa
// NVVM-NOT:     nvvm.cluster
// NVVM:         %[[WBAR:.*]] = llvm.getelementptr %{{.*}}[%[[HALF]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i64
// NVVM-NEXT:    %[[WADDR:.*]] = llvm.ptrtoint %[[WBAR]] : !llvm.ptr<3> to i32
// NVVM-NEXT:    scf.while
// NVVM-NEXT:      "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [$1], $2; selp.u32 $0, 1, 0, p; }", "=r,r,r" %[[WADDR]], %{{.*}} : (i32, i32) -> i32
// NVVM-NOT:     nvvm.mapa
// NVVM-NOT:     mbarrier
// NVVM-NOT:     nvvm.cluster
// NVVM:         arith.maximumf
// NVVM-NOT:     nvvm.mapa
// NVVM-NOT:     mbarrier
// NVVM-NOT:     nvvm.cluster
// NVVM:         nvvm.cluster.arrive
// NVVM-NEXT:    nvvm.cluster.wait
// NVVM-NEXT:    return

// ONE-CTA-LABEL: func.func @softmax
// ONE-CTA-NOT:   cluster_softmax_stats
// ONE-CTA-NOT:   cta_local
func.func @softmax(%out: !blk.ptr<f32> {blk.divisibility = 16 : i32},
                   %in: !blk.ptr<f32> {blk.divisibility = 16 : i32},
                   %n: i32) {
  %r = blk.make_range 0 to 2048 : tensor<2048xi32>
  %nb = blk.splat %n : i32 -> tensor<2048xi32>
  %m = arith.cmpi slt, %r, %nb : tensor<2048xi32>
  %ninf = arith.constant dense<0xFF800000> : tensor<2048xf32>
  %ib = blk.splat %in : !blk.ptr<f32> -> tensor<2048x!blk.ptr<f32>>
  %ip = blk.addptr %ib, %r : tensor<2048x!blk.ptr<f32>>, tensor<2048xi32>
  %x = blk.load %ip, %m, %ninf : tensor<2048x!blk.ptr<f32>>
  %max = blk.reduce max %x axis = 0 : tensor<2048xf32> -> f32
  %mb = blk.splat %max : f32 -> tensor<2048xf32>
  %d = arith.subf %x, %mb : tensor<2048xf32>
  %e = math.exp %d : tensor<2048xf32>
  %sum = blk.reduce sum %e axis = 0 : tensor<2048xf32> -> f32
  %sb = blk.splat %sum : f32 -> tensor<2048xf32>
  %y = arith.divf %e, %sb : tensor<2048xf32>
  %ob = blk.splat %out : !blk.ptr<f32> -> tensor<2048x!blk.ptr<f32>>
  %op = blk.addptr %ob, %r : tensor<2048x!blk.ptr<f32>>, tensor<2048xi32>
  blk.store %op, %y, %m : tensor<2048x!blk.ptr<f32>>
  return
}

// -----

// The max used elsewhere too (stored): left as it is, two exchanges.
// CHECK-LABEL: func.func @max_used_twice
// CHECK-NOT:     cta_local
// CHECK-NOT:     cluster_softmax_stats
// CHECK:         return
func.func @max_used_twice(%out: !blk.ptr<f32> {blk.divisibility = 16 : i32},
                          %in: !blk.ptr<f32> {blk.divisibility = 16 : i32}) {
  %r = blk.make_range 0 to 2048 : tensor<2048xi32>
  %ib = blk.splat %in : !blk.ptr<f32> -> tensor<2048x!blk.ptr<f32>>
  %ip = blk.addptr %ib, %r : tensor<2048x!blk.ptr<f32>>, tensor<2048xi32>
  %x = blk.load %ip : tensor<2048x!blk.ptr<f32>>
  %max = blk.reduce max %x axis = 0 : tensor<2048xf32> -> f32
  %mb = blk.splat %max : f32 -> tensor<2048xf32>
  %d = arith.subf %x, %mb : tensor<2048xf32>
  %e = math.exp %d : tensor<2048xf32>
  %sum = blk.reduce sum %e axis = 0 : tensor<2048xf32> -> f32
  %s = arith.addf %sum, %max : f32
  blk.store %out, %s : !blk.ptr<f32>
  return
}

// -----

// softmax(x) * scale as the softmax_scale example traces it: exp(x - max)
// times a splat of scale / sum. The exp's other use (the multiply) takes
// the rescaled local exp, whose rescale stays (it once was erased before
// the uses moved to it: a crash).
// CHECK-LABEL: func.func @scaled
// CHECK:         %[[LM:.*]] = blk.reduce max %{{.*}} axis = 0 {blkgpu.cta_local}
// CHECK:         %[[LE:.*]] = math.exp
// CHECK:         %[[LS:.*]] = blk.reduce sum %[[LE]] axis = 0 {blkgpu.cta_local}
// CHECK:         %[[M:.*]], %[[S:.*]] = blkgpu.cluster_softmax_stats %[[LM]], %[[LS]] : f32
// CHECK:         %[[RESCALED:.*]] = arith.mulf %[[LE]], %{{.*}} : tensor<2048xf32
// CHECK:         %[[Q:.*]] = arith.divf %arg2, %[[S]] : f32
// CHECK:         %[[QB:.*]] = blk.splat %[[Q]]
// CHECK:         arith.mulf %[[RESCALED]], %[[QB]]
func.func @scaled(%out: !blk.ptr<f32> {blk.divisibility = 16 : i32},
                  %in: !blk.ptr<f32> {blk.divisibility = 16 : i32},
                  %scale: f32) {
  %r = blk.make_range 0 to 2048 : tensor<2048xi32>
  %ib = blk.splat %in : !blk.ptr<f32> -> tensor<2048x!blk.ptr<f32>>
  %ip = blk.addptr %ib, %r : tensor<2048x!blk.ptr<f32>>, tensor<2048xi32>
  %x = blk.load %ip : tensor<2048x!blk.ptr<f32>>
  %max = blk.reduce max %x axis = 0 : tensor<2048xf32> -> f32
  %mb = blk.splat %max : f32 -> tensor<2048xf32>
  %d = arith.subf %x, %mb : tensor<2048xf32>
  %e = math.exp %d : tensor<2048xf32>
  %sum = blk.reduce sum %e axis = 0 : tensor<2048xf32> -> f32
  %q = arith.divf %scale, %sum : f32
  %qb = blk.splat %q : f32 -> tensor<2048xf32>
  %y = arith.mulf %e, %qb : tensor<2048xf32>
  %ob = blk.splat %out : !blk.ptr<f32> -> tensor<2048x!blk.ptr<f32>>
  %op = blk.addptr %ob, %r : tensor<2048x!blk.ptr<f32>>, tensor<2048xi32>
  blk.store %op, %y : tensor<2048x!blk.ptr<f32>>
  return
}

// -----

// Softmax down the columns of a [64, 32] block split over the cluster by
// rows (each column's line crosses both CTAs): the all_reduces become
// CTA-local, one cluster_softmax_stats along axis 0 exchanges every
// column's (max, sum) pair, and exp(x - max) / sum becomes the CTA's
// exp(x - local max) times rescale / sum, each a value per column.

// CHECK-LABEL: func.func @columns
// CHECK:         %[[X:.*]] = blk.load
// CHECK-NEXT:    %[[MLOC:.*]] = blkgpu.all_reduce max %[[X]] axis = 0 {blkgpu.cta_local}
// CHECK:         %[[EMPTY:.*]] = arith.cmpf oeq, %[[MLOC]], %{{.*}} : tensor<64x32xf32
// CHECK-NEXT:    %[[OFF:.*]] = arith.select %[[EMPTY]], %{{.*}}, %[[MLOC]]
// CHECK-NEXT:    %[[D:.*]] = arith.subf %[[X]], %[[OFF]]
// CHECK-NEXT:    %[[EL:.*]] = math.exp %[[D]]
// CHECK-NEXT:    %[[SLOC:.*]] = blkgpu.all_reduce sum %[[EL]] axis = 0 {blkgpu.cta_local}
// CHECK-NEXT:    %[[MAX:.*]], %[[SUM:.*]] = blkgpu.cluster_softmax_stats %[[MLOC]], %[[SLOC]] {axis = 0 : i32} : tensor<64x32xf32
// CHECK-NEXT:    %[[SHIFT:.*]] = arith.subf %[[MLOC]], %[[MAX]]
// CHECK-NEXT:    %[[R:.*]] = math.exp %[[SHIFT]]
// CHECK-NEXT:    %[[RESCALE:.*]] = arith.select %[[EMPTY]], %{{.*}}, %[[R]]
// CHECK-NEXT:    %[[F:.*]] = arith.divf %[[RESCALE]], %[[SUM]]
// CHECK-NEXT:    %[[Y:.*]] = arith.mulf %[[EL]], %[[F]]
// CHECK-NEXT:    blk.store %{{.*}}, %[[Y]]
// CHECK-NOT:     blkgpu.all_reduce

// One exchange a strip: one expect_tx and one wait.
// NVVM-LABEL:  func.func @columns
// NVVM-COUNT-1: mbarrier.arrive.expect_tx
// NVVM-NOT:    mbarrier.arrive.expect_tx
// NVVM-COUNT-1: mbarrier.try_wait.parity
// NVVM-NOT:    mbarrier.try_wait.parity
// NVVM:        return

// ONE-CTA-LABEL: func.func @columns
// ONE-CTA-NOT:   cluster_softmax_stats
// ONE-CTA-NOT:   cta_local
func.func @columns(%p: !blk.ptr<f32> {blk.divisibility = 16 : i32}) {
  %r = blk.make_range 0 to 2048 : tensor<2048xi32>
  %r2 = blk.reshape %r : tensor<2048xi32> -> tensor<64x32xi32>
  %pb = blk.splat %p : !blk.ptr<f32> -> tensor<64x32x!blk.ptr<f32>>
  %ptrs = blk.addptr %pb, %r2 : tensor<64x32x!blk.ptr<f32>>, tensor<64x32xi32>
  %x = blk.load %ptrs : tensor<64x32x!blk.ptr<f32>>
  %max = blkgpu.all_reduce max %x axis = 0 : tensor<64x32xf32>
  %d = arith.subf %x, %max : tensor<64x32xf32>
  %e = math.exp %d : tensor<64x32xf32>
  %sum = blkgpu.all_reduce sum %e axis = 0 : tensor<64x32xf32>
  %y = arith.divf %e, %sum : tensor<64x32xf32>
  blk.store %ptrs, %y : tensor<64x32x!blk.ptr<f32>>
  return
}

// -----

// The same along axis 1, whose lines (rows) each lie in one CTA: nothing
// crosses the cluster, so nothing is fused.
// CHECK-LABEL: func.func @rows_in_one_cta
// CHECK-NOT:     cluster_softmax_stats
// CHECK-NOT:     cta_local
// CHECK:         return
func.func @rows_in_one_cta(%p: !blk.ptr<f32> {blk.divisibility = 16 : i32}) {
  %r = blk.make_range 0 to 2048 : tensor<2048xi32>
  %r2 = blk.reshape %r : tensor<2048xi32> -> tensor<64x32xi32>
  %pb = blk.splat %p : !blk.ptr<f32> -> tensor<64x32x!blk.ptr<f32>>
  %ptrs = blk.addptr %pb, %r2 : tensor<64x32x!blk.ptr<f32>>, tensor<64x32xi32>
  %x = blk.load %ptrs : tensor<64x32x!blk.ptr<f32>>
  %max = blkgpu.all_reduce max %x axis = 1 : tensor<64x32xf32>
  %d = arith.subf %x, %max : tensor<64x32xf32>
  %e = math.exp %d : tensor<64x32xf32>
  %sum = blkgpu.all_reduce sum %e axis = 1 : tensor<64x32xf32>
  %y = arith.divf %e, %sum : tensor<64x32xf32>
  blk.store %ptrs, %y : tensor<64x32x!blk.ptr<f32>>
  return
}
