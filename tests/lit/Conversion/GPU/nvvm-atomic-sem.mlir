// RUN: blockjit-opt %s --blk-assign-layouts="num-warps=4" --convert-blk-to-nvvm | FileCheck %s

// On the GPU an atomic's scope becomes its syncscope ("block" for cta,
// "device" for gpu) and its sem its ordering; NVPTX drops the ordering of
// atomicrmw, so a read-modify-write gets a release fence before it for
// release and acq_rel, an acquire fence after it for acquire and acq_rel
// (none for relaxed), in the op's scope. cmpxchg keeps its own ordering and
// needs no fence.

// CHECK-LABEL: func.func @orderings
// CHECK-NOT:     llvm.fence
// CHECK:         llvm.atomicrmw fadd %{{.*}}, %{{.*}} syncscope("block") monotonic : !llvm.ptr<1>, f32
// CHECK-NOT:     llvm.fence
// CHECK:         llvm.fence syncscope("device") release
// CHECK-NOT:     llvm.fence
// CHECK:         llvm.atomicrmw max %{{.*}}, %{{.*}} syncscope("device") release : !llvm.ptr<1>, i32
// CHECK-NOT:     llvm.fence
// CHECK:         llvm.cmpxchg %{{.*}}, %{{.*}}, %{{.*}} syncscope("block") acquire acquire : !llvm.ptr<1>, i32
// CHECK-NOT:     llvm.fence
// CHECK:         llvm.atomicrmw xchg %{{.*}}, %{{.*}} syncscope("block") acquire : !llvm.ptr<1>, i32
// CHECK:         llvm.fence syncscope("block") acquire
// CHECK-NOT:     llvm.fence
// CHECK:         llvm.cmpxchg %{{.*}}, %{{.*}}, %{{.*}} syncscope("device") release monotonic : !llvm.ptr<1>, i32
// CHECK-NOT:     llvm.fence
// CHECK:         return
func.func @orderings(%out: !blk.ptr<f32>, %q: !blk.ptr<i32>, %x: i32, %f: f32) {
  %r = blk.make_range 0 to 16 : tensor<16xi32>
  %base = blk.splat %out : !blk.ptr<f32> -> tensor<16x!blk.ptr<f32>>
  %p = blk.addptr %base, %r : tensor<16x!blk.ptr<f32>>, tensor<16xi32>
  %v = blk.splat %f : f32 -> tensor<16xf32>
  %0 = blk.atomic_rmw add %p, %v {sem = #blk<mem_sem relaxed>, scope = #blk<mem_scope cta>} : tensor<16x!blk.ptr<f32>>, tensor<16xf32> -> tensor<16xf32>
  %1 = blk.atomic_rmw max %q, %x {sem = #blk<mem_sem release>} : !blk.ptr<i32>, i32 -> i32
  %2 = blk.atomic_cas %q, %x, %x {sem = #blk<mem_sem acquire>, scope = #blk<mem_scope cta>} : !blk.ptr<i32>, i32, i32 -> i32
  %3 = blk.atomic_rmw xchg %q, %x {sem = #blk<mem_sem acquire>, scope = #blk<mem_scope cta>} : !blk.ptr<i32>, i32 -> i32
  %4 = blk.atomic_cas %q, %x, %x {sem = #blk<mem_sem release>} : !blk.ptr<i32>, i32, i32 -> i32
  return
}
