// RUN: blockjit-opt %s | blockjit-opt | FileCheck %s

// blk.prefetch takes one scalar pointer, for reading or (`write`) for
// writing, and survives canonicalization although nothing uses it: it
// declares no memory effects, so it is never dead.

// CHECK-LABEL: func.func @prefetch
// CHECK-SAME:    (%[[P:.*]]: !blk.ptr<f32>, %[[Q:.*]]: !blk.ptr<bf16>)
// CHECK-NEXT:    blk.prefetch %[[P]] : !blk.ptr<f32>
// CHECK-NEXT:    blk.prefetch %[[Q]] write : !blk.ptr<bf16>
func.func @prefetch(%p: !blk.ptr<f32>, %q: !blk.ptr<bf16>) {
  blk.prefetch %p : !blk.ptr<f32>
  blk.prefetch %q write : !blk.ptr<bf16>
  return
}
