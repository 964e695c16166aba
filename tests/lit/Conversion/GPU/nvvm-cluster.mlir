// RUN: blockjit-opt %s --blk-assign-layouts="num-warps=4 num-ctas=2" \
// RUN:   --convert-blk-to-nvvm --canonicalize --cse | FileCheck %s

// convert-blk-to-nvvm on a program that runs on a cluster of 2 CTAs, each
// holding 2048 of the 4096 elements:
// - program_id / num_programs are the cluster's (%clusterid, %nclusterid);
// - the CTAs take turns tile by tile (tiles of 4 x 128 = 512 elements):
//   make_range's element k of thread t is t * 4 + %cluster_ctarank * 512
//   plus (k / 4) * 1024 + k % 4;
// - the max combines in-thread, across lanes, across warps (shared memory,
//   two barriers), then across the cluster: threads 0 and 1 store the CTA's
//   value into slot [phase][rank] of CTA 0's and CTA 1's buffer (mapa to a
//   shared::cluster address, address space 7), one cluster barrier, and
//   every thread combines the 2 slots from its own shared memory in rank
//   order; the phase (a local variable) flips per exchange;
// - a cluster barrier at entry (no CTA writes to one that has not started)
//   and before the return (none exits while another may write to it);
// - the scalar store runs in thread 0 of CTA 0 only.

// CHECK:       llvm.mlir.global internal @__blk_cluster_row() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<32 x i8>
// CHECK-LABEL: func.func @row
// CHECK:         %[[CLUSTER:.*]] = llvm.mlir.addressof @__blk_cluster_row : !llvm.ptr<3>
// CHECK:         %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK-NEXT:    %[[RANK:.*]] = nvvm.read.ptx.sreg.cluster.ctarank : i32
// CHECK-NEXT:    %[[FIRST:.*]] = arith.cmpi eq, %[[RANK]], %c0_i32 : i32
// CHECK-NEXT:    %[[PHASE:.*]] = llvm.alloca %{{.*}} x i32 : (i64) -> !llvm.ptr
// CHECK-NEXT:    nvvm.cluster.arrive
// CHECK-NEXT:    nvvm.cluster.wait
// CHECK-NEXT:    llvm.store %c0_i32, %[[PHASE]] : i32, !llvm.ptr
// CHECK-NEXT:    %[[PID:.*]] = nvvm.read.ptx.sreg.clusterid.x : i32
// CHECK-NEXT:    %[[NP:.*]] = nvvm.read.ptx.sreg.nclusterid.x : i32
// CHECK:         %[[T4:.*]] = arith.muli %[[TID]], %c4_i32 : i32
// CHECK-NEXT:    %[[TURN:.*]] = arith.muli %[[RANK]], %c512_i32 : i32
// CHECK-NEXT:    %[[BASE:.*]] = arith.addi %[[T4]], %[[TURN]] : i32
// CHECK-NEXT:    arith.addi %[[BASE]], %c1024_i32 : i32
// CHECK:         llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK:         nvvm.shfl.sync  bfly
// CHECK:         nvvm.barrier0
// CHECK:         nvvm.barrier0
// CHECK-NEXT:    %[[OLD:.*]] = llvm.load %[[PHASE]] : !llvm.ptr -> i32
// CHECK-NEXT:    %[[NEW:.*]] = arith.xori %[[OLD]], %c1_i32 : i32
// CHECK-NEXT:    llvm.store %[[NEW]], %[[PHASE]] : i32, !llvm.ptr
// CHECK:         %[[WRITER:.*]] = arith.cmpi ult, %[[TID]], %c2_i32 : i32
// CHECK-NEXT:    scf.if %[[WRITER]] {
// CHECK:           %[[LOCAL:.*]] = llvm.getelementptr %[[CLUSTER]][%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
// CHECK-NEXT:      %[[REMOTE:.*]] = nvvm.mapa %[[LOCAL]], %[[TID]] : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK-NEXT:      llvm.store %{{.*}}, %[[REMOTE]] : f32, !llvm.ptr<7>
// CHECK-NEXT:    }
// CHECK-NEXT:    nvvm.cluster.arrive
// CHECK-NEXT:    nvvm.cluster.wait
// CHECK:         llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK:         llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK:         arith.maximumf
// CHECK:         %[[T0:.*]] = arith.cmpi eq, %[[TID]], %c0_i32 : i32
// CHECK-NEXT:    %[[LEADER:.*]] = arith.andi %[[T0]], %[[FIRST]] : i1
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
