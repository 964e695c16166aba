// RUN: blockjit-opt %s | blockjit-opt | FileCheck %s

// blk.atomic_rmw (each kind) and blk.atomic_cas print and parse back, on
// blocks and scalar pointers, with and without a mask.

// CHECK-LABEL: func.func @atomics
// CHECK:         blk.atomic_rmw add %{{.*}}, %{{.*}}, %{{.*}} : tensor<16x!blk.ptr<f32>>, tensor<16xf32>, tensor<16xi1> -> tensor<16xf32>
// CHECK:         blk.atomic_rmw max %{{.*}}, %{{.*}} : tensor<16x!blk.ptr<f32>>, tensor<16xf32> -> tensor<16xf32>
// CHECK:         blk.atomic_rmw min %{{.*}}, %{{.*}} : !blk.ptr<i64>, i64 -> i64
// CHECK:         blk.atomic_rmw xchg %{{.*}}, %{{.*}}, %{{.*}} : !blk.ptr<i64>, i64, i1 -> i64
// CHECK:         blk.atomic_cas %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<16x!blk.ptr<f32>>, tensor<16xf32>, tensor<16xf32>, tensor<16xi1> -> tensor<16xf32>
// CHECK:         blk.atomic_cas %{{.*}}, %{{.*}}, %{{.*}} : !blk.ptr<i64>, i64, i64 -> i64
func.func @atomics(%p: tensor<16x!blk.ptr<f32>>, %v: tensor<16xf32>, %m: tensor<16xi1>,
                   %q: !blk.ptr<i64>, %w: i64, %b: i1) {
  %0 = blk.atomic_rmw add %p, %v, %m : tensor<16x!blk.ptr<f32>>, tensor<16xf32>, tensor<16xi1> -> tensor<16xf32>
  %1 = blk.atomic_rmw max %p, %v : tensor<16x!blk.ptr<f32>>, tensor<16xf32> -> tensor<16xf32>
  %2 = blk.atomic_rmw min %q, %w : !blk.ptr<i64>, i64 -> i64
  %3 = blk.atomic_rmw xchg %q, %w, %b : !blk.ptr<i64>, i64, i1 -> i64
  %4 = blk.atomic_cas %p, %v, %v, %m : tensor<16x!blk.ptr<f32>>, tensor<16xf32>, tensor<16xf32>, tensor<16xi1> -> tensor<16xf32>
  %5 = blk.atomic_cas %q, %w, %w : !blk.ptr<i64>, i64, i64 -> i64
  return
}

// Atomics write memory: canonicalization keeps them with unused results.
// RUN: blockjit-opt %s --canonicalize --cse | FileCheck %s --check-prefix=KEEP
// KEEP-LABEL: func.func @atomics
// KEEP-COUNT-4: blk.atomic_rmw
// KEEP-COUNT-2: blk.atomic_cas

// sem and scope: printed only when not the defaults (acq_rel, gpu).
// CHECK-LABEL: func.func @orderings
// CHECK:         blk.atomic_rmw add %{{.*}}, %{{.*}} {scope = #blk<mem_scope cta>, sem = #blk<mem_sem relaxed>} : !blk.ptr<i32>, i32 -> i32
// CHECK:         blk.atomic_rmw xchg %{{.*}}, %{{.*}} {sem = #blk<mem_sem release>} : !blk.ptr<i32>, i32 -> i32
// CHECK:         blk.atomic_cas %{{.*}}, %{{.*}}, %{{.*}} {sem = #blk<mem_sem acquire>} : !blk.ptr<i32>, i32, i32 -> i32
// CHECK:         blk.atomic_rmw min %{{.*}}, %{{.*}} : !blk.ptr<i32>, i32 -> i32
func.func @orderings(%q: !blk.ptr<i32>, %x: i32) {
  %0 = blk.atomic_rmw add %q, %x {sem = #blk<mem_sem relaxed>, scope = #blk<mem_scope cta>} : !blk.ptr<i32>, i32 -> i32
  %1 = blk.atomic_rmw xchg %q, %x {sem = #blk<mem_sem release>, scope = #blk<mem_scope gpu>} : !blk.ptr<i32>, i32 -> i32
  %2 = blk.atomic_cas %q, %x, %x {sem = #blk<mem_sem acquire>} : !blk.ptr<i32>, i32, i32 -> i32
  %3 = blk.atomic_rmw min %q, %x {sem = #blk<mem_sem acq_rel>} : !blk.ptr<i32>, i32 -> i32
  return
}
