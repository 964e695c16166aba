// RUN: blockjit-opt %s --split-input-file --blk-assign-layouts="num-warps=4" \
// RUN:   --convert-blk-to-nvvm | FileCheck %s
// RUN: blockjit-opt %s --split-input-file --blk-assign-layouts="num-warps=1" \
// RUN:   --convert-blk-to-nvvm | FileCheck %s --check-prefix=W1
// RUN: blockjit-opt %s --split-input-file --blk-assign-layouts="num-warps=8" \
// RUN:   --convert-blk-to-nvvm | FileCheck %s --check-prefix=W8
// Two reductions: 5 butterfly shuffles each (offsets 16, 8, 4, 2, 1) and,
// with more than one warp, 1 barrier each; with one warp no barrier at all.
// RUN: blockjit-opt %s --split-input-file --blk-assign-layouts="num-warps=4" \
// RUN:   --convert-blk-to-nvvm | grep -c "nvvm.shfl.sync  bfly" | FileCheck %s --check-prefix=SHFL
// RUN: blockjit-opt %s --split-input-file --blk-assign-layouts="num-warps=1" \
// RUN:   --convert-blk-to-nvvm | grep -c "nvvm.shfl.sync  bfly" | FileCheck %s --check-prefix=SHFL
// RUN: blockjit-opt %s --split-input-file --blk-assign-layouts="num-warps=4" \
// RUN:   --convert-blk-to-nvvm | grep -c "nvvm.barrier0" | FileCheck %s --check-prefix=BAR4
// RUN: blockjit-opt %s --split-input-file --blk-assign-layouts="num-warps=1" \
// RUN:   --convert-blk-to-nvvm | FileCheck %s --check-prefix=NOBAR

// A reduction combines in-thread, then across the warp with butterfly
// shuffles (so every lane has the warp's value), then across warps: lane 0
// of each warp writes its value to a half of a shared-memory array (address
// space 3) of two halves of num_warps elements, all threads wait (barrier),
// and every thread reads all the slots (side by side: 16-byte vector loads)
// and combines them in warp order. Reductions take the halves in turn (a
// count in a local variable; its low bit picks the half), so no second
// barrier is needed to keep the next one (the next loop iteration's) from
// overwriting slots still being read: a thread writes a half again only
// after the barrier of the reduction in between, which every thread
// reaches after its reads.

// SHFL: {{^}}10{{$}}
// BAR4: {{^}}2{{$}}
// NOBAR-NOT: nvvm.barrier0
// NOBAR-NOT: addr_space = 3

// One shared array of two halves of num_warps (4) f32; the halves' distance
// (16 bytes) and the count of reductions (0) at the kernel's entry.
// CHECK-DAG:   llvm.mlir.global internal @__blk_warp_exchange_{{[A-Za-z0-9_]+}}() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<32 x i8>
// CHECK-NOT:   @__blk_smem_
// CHECK-LABEL: func.func @max_and_sum
// CHECK-NEXT:    %[[STRIDE:.*]] = llvm.mlir.constant(16 : i32) : i32
// CHECK-NEXT:    %[[ONE64:.*]] = arith.constant 1 : i64
// CHECK-NEXT:    %[[COUNT:.*]] = llvm.alloca %[[ONE64]] x i32 : (i64) -> !llvm.ptr
// CHECK-NEXT:    %[[ZERO32:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    llvm.store %[[ZERO32]], %[[COUNT]] : i32, !llvm.ptr
// CHECK:         %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x range <i32, 0, {{[0-9]+}}> : i32
// In-thread: 8 elements (1024 over 128 threads) into 4 interleaved
// partials (element k into partial k mod 4), then pairwise, neighbours
// first: 3 dependent steps instead of 8, 7 combines, no identity.
// CHECK:         %[[P0:.*]] = arith.maximumf %[[E0:.*]], %[[E4:.*]] : f32
// CHECK-NEXT:    %[[P1:.*]] = arith.maximumf %[[E1:.*]], %[[E5:.*]] : f32
// CHECK-NEXT:    %[[P2:.*]] = arith.maximumf %[[E2:.*]], %[[E6:.*]] : f32
// CHECK-NEXT:    %[[P3:.*]] = arith.maximumf %[[E3:.*]], %[[E7:.*]] : f32
// CHECK-NEXT:    %[[Q0:.*]] = arith.maximumf %[[P0]], %[[P1]] : f32
// CHECK-NEXT:    %[[Q1:.*]] = arith.maximumf %[[P2]], %[[P3]] : f32
// CHECK-NEXT:    %[[X16:.*]] = arith.maximumf %[[Q0]], %[[Q1]] : f32
// Butterfly steps (warpShuffle): mask -1, clamp 31, offsets 16 .. 1.
// CHECK:         %[[ALL:.*]] = arith.constant -1 : i32
// CHECK-NEXT:    %[[CLAMP:.*]] = arith.constant 31 : i32
// CHECK-NEXT:    %[[O16:.*]] = arith.constant 16 : i32
// CHECK-NEXT:    %[[S16:.*]] = nvvm.shfl.sync  bfly %[[ALL]], %[[X16:.*]], %[[O16]], %[[CLAMP]] : f32 -> f32
// CHECK-NEXT:    %[[X8:.*]] = arith.maximumf %[[X16]], %[[S16]] : f32
// CHECK:         %[[O8:.*]] = arith.constant 8 : i32
// CHECK-NEXT:    %[[S8:.*]] = nvvm.shfl.sync  bfly %{{.*}}, %[[X8]], %[[O8]], %{{.*}} : f32 -> f32
// CHECK-NEXT:    %[[X4:.*]] = arith.maximumf %[[X8]], %[[S8]] : f32
// CHECK:         %[[O4:.*]] = arith.constant 4 : i32
// CHECK-NEXT:    %[[S4:.*]] = nvvm.shfl.sync  bfly %{{.*}}, %[[X4]], %[[O4]], %{{.*}} : f32 -> f32
// CHECK-NEXT:    %[[X2:.*]] = arith.maximumf %[[X4]], %[[S4]] : f32
// CHECK:         %[[O2:.*]] = arith.constant 2 : i32
// CHECK-NEXT:    %[[S2:.*]] = nvvm.shfl.sync  bfly %{{.*}}, %[[X2]], %[[O2]], %{{.*}} : f32 -> f32
// CHECK-NEXT:    %[[X1:.*]] = arith.maximumf %[[X2]], %[[S2]] : f32
// CHECK:         %[[O1:.*]] = arith.constant 1 : i32
// CHECK-NEXT:    %[[S1:.*]] = nvvm.shfl.sync  bfly %{{.*}}, %[[X1]], %[[O1]], %{{.*}} : f32 -> f32
// CHECK-NEXT:    %[[WMAX:.*]] = arith.maximumf %[[X1]], %[[S1]] : f32
// Across warps: this reduction's half (count & 1, then count + 1); lane =
// tid & 31, warp = tid >> 5; lane 0 publishes.
// CHECK-NEXT:    %[[N:.*]] = llvm.load %[[COUNT]] : !llvm.ptr -> i32
// CHECK-NEXT:    %[[C1:.*]] = arith.constant 1 : i32
// CHECK-NEXT:    %[[N1:.*]] = arith.addi %[[N]], %[[C1]] : i32
// CHECK-NEXT:    llvm.store %[[N1]], %[[COUNT]] : i32, !llvm.ptr
// CHECK-NEXT:    %[[C1B:.*]] = arith.constant 1 : i32
// CHECK-NEXT:    %[[HALF:.*]] = arith.andi %[[N]], %[[C1B]] : i32
// CHECK-NEXT:    %[[ARRAY:.*]] = llvm.mlir.addressof @__blk_warp_exchange_{{[A-Za-z0-9_]+}} : !llvm.ptr<3>
// CHECK-NEXT:    %[[OFFSET:.*]] = llvm.mul %[[HALF]], %[[STRIDE]] : i32
// CHECK-NEXT:    %[[SMEM:.*]] = llvm.getelementptr %[[ARRAY]][%[[OFFSET]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
// CHECK-NEXT:    %[[C31:.*]] = arith.constant 31 : i32
// CHECK-NEXT:    %[[LANE:.*]] = arith.andi %[[TID]], %[[C31]] : i32
// CHECK-NEXT:    %[[C5:.*]] = arith.constant 5 : i32
// CHECK-NEXT:    %[[WARP:.*]] = arith.shrui %[[TID]], %[[C5]] : i32
// CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[LEADER:.*]] = arith.cmpi eq, %[[LANE]], %[[C0]] : i32
// CHECK-NEXT:    scf.if %[[LEADER]] {
// CHECK-NEXT:      %[[SLOT:.*]] = llvm.getelementptr %[[SMEM]][%[[WARP]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
// CHECK-NEXT:      llvm.store %[[WMAX]], %[[SLOT]] : f32, !llvm.ptr<3>
// CHECK-NEXT:    }
// CHECK-NEXT:    nvvm.barrier0
// The 4 warps' slots side by side: one 16-byte load, then the identity
// and the slots combined in warp order.
// CHECK-NEXT:    %[[G0:.*]] = llvm.getelementptr %[[SMEM]][0] : (!llvm.ptr<3>) -> !llvm.ptr<3>, f32
// CHECK-NEXT:    %[[V:.*]] = llvm.load %[[G0]] {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// CHECK-NEXT:    %[[I0:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[L0:.*]] = llvm.extractelement %[[V]][%[[I0]] : i32] : vector<4xf32>
// CHECK-NEXT:    %[[I1:.*]] = arith.constant 1 : i32
// CHECK-NEXT:    %[[L1:.*]] = llvm.extractelement %[[V]][%[[I1]] : i32] : vector<4xf32>
// CHECK-NEXT:    %[[I2:.*]] = arith.constant 2 : i32
// CHECK-NEXT:    %[[L2:.*]] = llvm.extractelement %[[V]][%[[I2]] : i32] : vector<4xf32>
// CHECK-NEXT:    %[[I3:.*]] = arith.constant 3 : i32
// CHECK-NEXT:    %[[L3:.*]] = llvm.extractelement %[[V]][%[[I3]] : i32] : vector<4xf32>
// CHECK-NEXT:    %[[NINF2:.*]] = arith.constant 0xFF800000 : f32
// CHECK-NEXT:    %[[R0:.*]] = arith.maximumf %[[NINF2]], %[[L0]] : f32
// CHECK-NEXT:    %[[R1:.*]] = arith.maximumf %[[R0]], %[[L1]] : f32
// CHECK-NEXT:    %[[R2:.*]] = arith.maximumf %[[R1]], %[[L2]] : f32
// CHECK-NEXT:    %[[MAX:.*]] = arith.maximumf %[[R2]], %[[L3]] : f32
// CHECK-NOT:     nvvm.barrier0
// The sum takes the other half; in-thread, 4 partials as for the max.
// CHECK-COUNT-7: arith.addf %{{.*}}, %{{.*}} : f32
// CHECK-COUNT-5: nvvm.shfl.sync  bfly %{{.*}} : f32 -> f32
// CHECK:         llvm.load %[[COUNT]] : !llvm.ptr -> i32
// CHECK:         llvm.mlir.addressof @__blk_warp_exchange_{{[A-Za-z0-9_]+}} : !llvm.ptr<3>
// CHECK-NEXT:    llvm.mul %{{.*}}, %[[STRIDE]] : i32
// CHECK:         nvvm.barrier0
// CHECK-NEXT:    llvm.getelementptr %{{.*}}[0] : (!llvm.ptr<3>) -> !llvm.ptr<3>, f32
// CHECK-NEXT:    llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// CHECK-COUNT-4: llvm.extractelement %{{.*}} : vector<4xf32>
// CHECK-NEXT:    arith.constant 0.000000e+00 : f32
// CHECK-COUNT-3: arith.addf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:    %[[SUM:.*]] = arith.addf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:    %[[T:.*]] = arith.addf %[[MAX]], %[[SUM]] : f32
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[FIRST:.*]] = arith.cmpi eq, %{{.*}}, %[[ZERO]] : i32
// CHECK-NEXT:    scf.if %[[FIRST]] {
// CHECK-NEXT:      blk.store %{{.*}}, %[[T]] : !blk.ptr<f32>

// 8 warps: halves of 8 slots, all 8 slots read back as two 16-byte loads
// (slots 0-3, 4-7), then combined from the identity in warp order.
// W8-DAG:      llvm.mlir.global internal @__blk_warp_exchange_{{[A-Za-z0-9_]+}}() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<64 x i8>
// W8-LABEL:    func.func @max_and_sum
// W8:            nvvm.barrier0
// W8-NEXT:       %[[G0:.*]] = llvm.getelementptr %[[SMEM:.*]][0] : (!llvm.ptr<3>) -> !llvm.ptr<3>, f32
// W8-NEXT:       %[[V0:.*]] = llvm.load %[[G0]] {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// W8-COUNT-4:    llvm.extractelement %[[V0]][%{{.*}} : i32] : vector<4xf32>
// W8-NEXT:       %[[G4:.*]] = llvm.getelementptr %[[SMEM]][4] : (!llvm.ptr<3>) -> !llvm.ptr<3>, f32
// W8-NEXT:       %[[V4:.*]] = llvm.load %[[G4]] {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// W8-COUNT-4:    llvm.extractelement %[[V4]][%{{.*}} : i32] : vector<4xf32>
// W8-NEXT:       arith.constant 0xFF800000 : f32
// W8-COUNT-8:    arith.maximumf
// W8-NOT:        nvvm.barrier0
// W8:            llvm.load %{{.*}} : !llvm.ptr -> i32

// One warp: the shuffles are the whole reduction; no shared memory.
// W1-NOT:      llvm.mlir.global
// W1-LABEL:    func.func @max_and_sum
// W1-COUNT-5:    nvvm.shfl.sync  bfly %{{.*}} : f32 -> f32
// W1-NEXT:       %[[MAX:.*]] = arith.maximumf %{{.*}} : f32
// W1-NOT:        llvm.mlir.addressof
// W1-COUNT-5:    nvvm.shfl.sync  bfly %{{.*}} : f32 -> f32
// W1-NEXT:       %[[SUM:.*]] = arith.addf %{{.*}} : f32
// W1-NEXT:       %[[T:.*]] = arith.addf %[[MAX]], %[[SUM]] : f32
// W1-NEXT:       %[[ZERO:.*]] = arith.constant 0 : i32
// W1-NEXT:       %[[FIRST:.*]] = arith.cmpi eq, %{{.*}}, %[[ZERO]] : i32
// W1-NEXT:       scf.if %[[FIRST]] {
// W1-NEXT:         blk.store %{{.*}}, %[[T]] : !blk.ptr<f32>
func.func @max_and_sum(%in: !blk.ptr<f32> {blk.divisibility = 16 : i32}, %out: !blk.ptr<f32>) {
  %r = blk.make_range 0 to 1024 : tensor<1024xi32>
  %b = blk.splat %in : !blk.ptr<f32> -> tensor<1024x!blk.ptr<f32>>
  %p = blk.addptr %b, %r : tensor<1024x!blk.ptr<f32>>, tensor<1024xi32>
  %x = blk.load %p : tensor<1024x!blk.ptr<f32>>
  %mx = blk.reduce max %x axis = 0 : tensor<1024xf32> -> f32
  %s = blk.reduce sum %x axis = 0 : tensor<1024xf32> -> f32
  %t = arith.addf %mx, %s : f32
  blk.store %out, %t : !blk.ptr<f32>
  return
}
