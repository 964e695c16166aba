// RUN: blockjit-opt %s --split-input-file --blk-assign-layouts="num-warps=4" \
// RUN:   --convert-blk-to-nvvm | FileCheck %s

// A 16-element block on 128 threads (num-warps 4): thread t holds element
// t % 16 and threads 16..127 hold replicas. Only the owner (raw index < 16)
// executes the atomic, and only where the mask is true (else 0); the
// read-modify-write is fenced, as NVPTX drops atomicrmw orderings. The old
// values are used, so owners publish them in the scratch array and every
// thread reads its element's between two barriers (reached by all threads,
// outside the per-thread branches).

// CHECK-LABEL: func.func @replicated
// CHECK:         %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x range <i32, 0, {{[0-9]+}}> : i32
// CHECK:         %[[MASK:.*]] = arith.cmpi slt, %{{.*}}, %{{.*}} : i32
// CHECK:         %[[PTR:.*]] = blk.addptr
// CHECK:         llvm.fence syncscope("device") release
// CHECK:         %[[RAW:.*]] = arith.addi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:    %[[C16:.*]] = arith.constant 16 : i32
// CHECK-NEXT:    %[[OWNER:.*]] = arith.cmpi ult, %[[RAW]], %[[C16]] : i32
// CHECK-NEXT:    %[[DO:.*]] = arith.andi %[[OWNER]], %[[MASK]] : i1
// CHECK-NEXT:    %[[OLD:.*]] = scf.if %[[DO]] -> (f32) {
// CHECK-NEXT:      %[[LP:.*]] = builtin.unrealized_conversion_cast %[[PTR]] : !blk.ptr<f32> to !llvm.ptr<1>
// CHECK-NEXT:      %[[A:.*]] = llvm.atomicrmw fadd %[[LP]], %{{.*}} syncscope("device") acq_rel : !llvm.ptr<1>, f32
// CHECK-NEXT:      scf.yield %[[A]] : f32
// CHECK-NEXT:    } else {
// CHECK-NEXT:      arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      scf.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    llvm.fence syncscope("device") acquire
// CHECK:         %[[READ:.*]] = arith.andi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:    %[[SMEM:.*]] = llvm.mlir.addressof @__blk_smem_replicated : !llvm.ptr<3>
// CHECK-NEXT:    scf.if %[[OWNER]] {
// CHECK-NEXT:      %[[SLOT:.*]] = llvm.getelementptr %[[SMEM]][%[[RAW]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
// CHECK-NEXT:      llvm.store %[[OLD]], %[[SLOT]] : f32, !llvm.ptr<3>
// CHECK-NEXT:    }
// CHECK-NEXT:    nvvm.barrier0
// CHECK-NEXT:    %[[RS:.*]] = llvm.getelementptr %[[SMEM]][%[[READ]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
// CHECK-NEXT:    %[[MINE:.*]] = llvm.load %[[RS]] : !llvm.ptr<3> -> f32
// CHECK-NEXT:    nvvm.barrier0
// CHECK:         blk.store %{{.*}}, %[[MINE]] : !blk.ptr<f32>

func.func @replicated(%out: !blk.ptr<f32>, %res: !blk.ptr<f32>, %n: i32) {
  %r = blk.make_range 0 to 16 : tensor<16xi32>
  %nb = blk.splat %n : i32 -> tensor<16xi32>
  %mask = arith.cmpi slt, %r, %nb : tensor<16xi32>
  %base = blk.splat %out : !blk.ptr<f32> -> tensor<16x!blk.ptr<f32>>
  %p = blk.addptr %base, %r : tensor<16x!blk.ptr<f32>>, tensor<16xi32>
  %one = arith.constant dense<1.0> : tensor<16xf32>
  %old = blk.atomic_rmw add %p, %one, %mask : tensor<16x!blk.ptr<f32>>, tensor<16xf32>, tensor<16xi1> -> tensor<16xf32>
  %rb = blk.splat %res : !blk.ptr<f32> -> tensor<16x!blk.ptr<f32>>
  %q = blk.addptr %rb, %r : tensor<16x!blk.ptr<f32>>, tensor<16xi32>
  blk.store %q, %old : tensor<16x!blk.ptr<f32>>
  return
}

// -----

// Unused old values need no exchange: owner predicate, no barrier.
// CHECK-LABEL: func.func @replicated_unused
// CHECK:         llvm.fence syncscope("device") release
// CHECK:         %[[OWNER:.*]] = arith.cmpi ult, %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:    scf.if %[[OWNER]] -> (i32) {
// CHECK:           llvm.atomicrmw max %{{.*}}, %{{.*}} syncscope("device") acq_rel : !llvm.ptr<1>, i32
// CHECK:         llvm.fence syncscope("device") acquire
// CHECK-NOT:     nvvm.barrier0
// CHECK:         return

func.func @replicated_unused(%out: !blk.ptr<i32>) {
  %r = blk.make_range 0 to 16 : tensor<16xi32>
  %base = blk.splat %out : !blk.ptr<i32> -> tensor<16x!blk.ptr<i32>>
  %p = blk.addptr %base, %r : tensor<16x!blk.ptr<i32>>, tensor<16xi32>
  %old = blk.atomic_rmw max %p, %r : tensor<16x!blk.ptr<i32>>, tensor<16xi32> -> tensor<16xi32>
  return
}

// -----

// A block spread over the threads without replicas (256 elements, 2 per
// thread): every thread executes its own elements' atomics, unconditionally
// when unmasked; cmpxchg keeps its acq_rel ordering in NVPTX, so no fence.
// CHECK-LABEL: func.func @distributed
// CHECK-NOT:     scf.if
// CHECK-NOT:     llvm.fence
// CHECK:         llvm.cmpxchg %{{.*}}, %{{.*}}, %{{.*}} syncscope("device") acq_rel acquire : !llvm.ptr<1>, i64
// CHECK:         llvm.cmpxchg %{{.*}}, %{{.*}}, %{{.*}} syncscope("device") acq_rel acquire : !llvm.ptr<1>, i64
// CHECK-NOT:     nvvm.barrier0
// CHECK:         return

func.func @distributed(%out: !blk.ptr<i64>) {
  %r = blk.make_range 0 to 256 : tensor<256xi32>
  %base = blk.splat %out : !blk.ptr<i64> -> tensor<256x!blk.ptr<i64>>
  %p = blk.addptr %base, %r : tensor<256x!blk.ptr<i64>>, tensor<256xi32>
  %v = arith.extsi %r : tensor<256xi32> to tensor<256xi64>
  %old = blk.atomic_cas %p, %v, %v : tensor<256x!blk.ptr<i64>>, tensor<256xi64>, tensor<256xi64> -> tensor<256xi64>
  blk.store %p, %old : tensor<256x!blk.ptr<i64>>
  return
}

// -----

// An atomic on a scalar pointer runs once per program, on thread 0, and its
// old value reaches every thread through the scratch array.
// CHECK-LABEL: func.func @scalar
// CHECK:         %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x range <i32, 0, {{[0-9]+}}> : i32
// CHECK:         %[[FIRST:.*]] = arith.cmpi eq, %[[TID]], %{{.*}} : i32
// CHECK-NEXT:    %[[OLD:.*]] = scf.if %[[FIRST]] -> (i32) {
// CHECK:           llvm.atomicrmw xchg %{{.*}}, %{{.*}} syncscope("device") acq_rel : !llvm.ptr<1>, i32
// CHECK:         scf.if %[[FIRST]] {
// CHECK-NEXT:      llvm.getelementptr
// CHECK-NEXT:      llvm.store %[[OLD]]
// CHECK-NEXT:    }
// CHECK-NEXT:    nvvm.barrier0
// CHECK-NEXT:    llvm.getelementptr
// CHECK-NEXT:    %[[ALL:.*]] = llvm.load %{{.*}} : !llvm.ptr<3> -> i32
// CHECK-NEXT:    nvvm.barrier0
// CHECK:         blk.store %{{.*}}, %[[ALL]] : !blk.ptr<i32>
// CHECK:         blk.store %{{.*}}, %[[ALL]] : !blk.ptr<i32>

func.func @scalar(%cnt: !blk.ptr<i32>, %out: !blk.ptr<i32>) {
  %c1 = arith.constant 1 : i32
  %old = blk.atomic_rmw xchg %cnt, %c1 : !blk.ptr<i32>, i32 -> i32
  %r = blk.make_range 0 to 256 : tensor<256xi32>
  %base = blk.splat %out : !blk.ptr<i32> -> tensor<256x!blk.ptr<i32>>
  %p = blk.addptr %base, %r : tensor<256x!blk.ptr<i32>>, tensor<256xi32>
  %ob = blk.splat %old : i32 -> tensor<256xi32>
  blk.store %p, %ob : tensor<256x!blk.ptr<i32>>
  return
}
