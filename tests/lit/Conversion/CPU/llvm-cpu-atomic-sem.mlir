// RUN: blockjit-opt %s --convert-blk-to-loops --convert-blk-to-llvm-cpu | FileCheck %s

// An atomic's sem becomes its LLVM ordering (relaxed is monotonic); a
// cmpxchg that fails orders as acquire for acquire and acq_rel, else as
// monotonic. The CPU ignores the scope: its atomics order for the whole
// system (no syncscope), which is at least what any scope asks. The block
// atomic's lanes keep the op's ordering.

// CHECK-LABEL: llvm.func internal @orderings
// CHECK:         llvm.atomicrmw fadd %{{.*}}, %{{.*}} monotonic : !llvm.ptr, f32
// CHECK-NOT:     syncscope
// CHECK:         llvm.atomicrmw max %{{.*}}, %{{.*}} release : !llvm.ptr, i32
// CHECK:         llvm.cmpxchg %{{.*}}, %{{.*}}, %{{.*}} acquire acquire : !llvm.ptr, i32
// CHECK:         llvm.atomicrmw xchg %{{.*}}, %{{.*}} acquire : !llvm.ptr, i32
// CHECK:         llvm.cmpxchg %{{.*}}, %{{.*}}, %{{.*}} release monotonic : !llvm.ptr, i32
// CHECK:         llvm.cmpxchg %{{.*}}, %{{.*}}, %{{.*}} monotonic monotonic : !llvm.ptr, i32
// CHECK:         llvm.cmpxchg %{{.*}}, %{{.*}}, %{{.*}} acq_rel acquire : !llvm.ptr, i32
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
  %5 = blk.atomic_cas %q, %x, %x {sem = #blk<mem_sem relaxed>} : !blk.ptr<i32>, i32, i32 -> i32
  %6 = blk.atomic_cas %q, %x, %x : !blk.ptr<i32>, i32, i32 -> i32
  return
}
