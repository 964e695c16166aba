// RUN: blockjit-opt %s --canonicalize --cse | FileCheck %s

// Canonicalization and CSE keep prefetches (they have no result to be
// unused, and no declared effects that would make them removable).

// CHECK-LABEL: func.func @kept
// CHECK-COUNT-2: blk.prefetch
// CHECK-NEXT:    return
func.func @kept(%p: !blk.ptr<f32>) {
  blk.prefetch %p : !blk.ptr<f32>
  blk.prefetch %p : !blk.ptr<f32>
  return
}
