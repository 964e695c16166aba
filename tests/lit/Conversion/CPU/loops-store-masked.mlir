// RUN: blockjit-opt %s --convert-blk-to-loops | FileCheck %s

// A masked block store with a prefix mask (`range < n`) becomes one loop
// over lanes [0, clamp(n, 0, 64)) with no test in its body: lanes past it
// are never visited, so they compute nothing and touch no memory. Pointers
// are recomputed, never buffered: this kernel needs no stack buffer at all.

// CHECK-LABEL: func.func @masked_store
// CHECK-SAME:    (%[[OUT:[^:]*]]: !blk.ptr<f32>, %[[N:[^:]*]]: i32, %[[V:[^:]*]]: f32)
// CHECK-NOT:     memref.alloca
// CHECK:         %[[N64:.*]] = arith.extsi %[[N]] : i32 to i64
// CHECK:         %[[END:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK:         scf.for %[[I:.*]] = %{{.*}} to %[[END]] step %{{.*}} {
// CHECK-NEXT:      %[[COL:.*]] = arith.index_cast %[[I]] : index to i32
// CHECK-NEXT:      %[[PTR:.*]] = blk.addptr %[[OUT]], %[[COL]] : !blk.ptr<f32>, i32
// CHECK-NEXT:      blk.store %[[PTR]], %[[V]] : !blk.ptr<f32>
// CHECK-NEXT:    }
// CHECK-NEXT:    return
func.func @masked_store(%out: !blk.ptr<f32>, %n: i32, %v: f32) {
  %r = blk.make_range 0 to 64 : tensor<64xi32>
  %nb = blk.splat %n : i32 -> tensor<64xi32>
  %mask = arith.cmpi slt, %r, %nb : tensor<64xi32>
  %base = blk.splat %out : !blk.ptr<f32> -> tensor<64x!blk.ptr<f32>>
  %p = blk.addptr %base, %r : tensor<64x!blk.ptr<f32>>, tensor<64xi32>
  %vb = blk.splat %v : f32 -> tensor<64xf32>
  blk.store %p, %vb, %mask : tensor<64x!blk.ptr<f32>>
  return
}

// An unmasked store has no scf.if.
// CHECK-LABEL: func.func @unmasked_store
// CHECK-SAME:    (%[[OUT:[^:]*]]: !blk.ptr<i32>)
// CHECK-NOT:     memref.alloca
// CHECK:         scf.for %[[I:.*]] = {{.*}} {
// CHECK-NEXT:      %[[COL:.*]] = arith.index_cast %[[I]] : index to i32
// CHECK-NEXT:      %[[PTR:.*]] = blk.addptr %[[OUT]], %[[COL]] : !blk.ptr<i32>, i32
// CHECK-NEXT:      %[[COL2:.*]] = arith.index_cast %[[I]] : index to i32
// CHECK-NEXT:      blk.store %[[PTR]], %[[COL2]] : !blk.ptr<i32>
// CHECK-NEXT:    }
// CHECK-NOT:     scf.if
// CHECK:         return
func.func @unmasked_store(%out: !blk.ptr<i32>) {
  %r = blk.make_range 0 to 16 : tensor<16xi32>
  %base = blk.splat %out : !blk.ptr<i32> -> tensor<16x!blk.ptr<i32>>
  %p = blk.addptr %base, %r : tensor<16x!blk.ptr<i32>>, tensor<16xi32>
  blk.store %p, %r : tensor<16x!blk.ptr<i32>>
  return
}

// A mask that is no prefix (every other lane) is tested per lane, around
// the pointer, the value and the store.
// CHECK-LABEL: func.func @masked_store_per_lane
// CHECK:         scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:           %[[M:.*]] = arith.cmpi eq, %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:      scf.if %[[M]] {
// CHECK:             blk.store
// CHECK-NEXT:      }
// CHECK-NEXT:    }
func.func @masked_store_per_lane(%out: !blk.ptr<f32>, %v: f32) {
  %r = blk.make_range 0 to 64 : tensor<64xi32>
  %one = arith.constant dense<1> : tensor<64xi32>
  %zero = arith.constant dense<0> : tensor<64xi32>
  %odd = arith.andi %r, %one : tensor<64xi32>
  %mask = arith.cmpi eq, %odd, %zero : tensor<64xi32>
  %base = blk.splat %out : !blk.ptr<f32> -> tensor<64x!blk.ptr<f32>>
  %p = blk.addptr %base, %r : tensor<64x!blk.ptr<f32>>, tensor<64xi32>
  %vb = blk.splat %v : f32 -> tensor<64xf32>
  blk.store %p, %vb, %mask : tensor<64x!blk.ptr<f32>>
  return
}
