// RUN: blockjit-opt %s --split-input-file --convert-blk-to-loops | FileCheck %s

// A block atomic becomes a loop over its lanes, each one scalar, unmasked
// blk.atomic_* under an scf.if on the lane's mask (a masked lane touches no
// memory and gives 0); the old values go to a buffer the consumers read. A
// masked atomic on a scalar pointer becomes the same scf.if.

// CHECK-LABEL: func.func @block_masked
// CHECK-SAME:    (%[[OUT:[^:]*]]: !blk.ptr<i32>, %[[RES:[^:]*]]: !blk.ptr<i32>, %[[N:[^:]*]]: i32)
// CHECK:         %[[BUF:.*]] = memref.alloca() {{.*}} : memref<16xi32>
// CHECK:         scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:           %[[PTR:.*]] = blk.addptr %[[OUT]], %{{.*}} : !blk.ptr<i32>, i32
// CHECK:           %[[V:.*]] = arith.index_cast %[[I]] : index to i32
// CHECK:           %[[M:.*]] = arith.cmpi slt, %{{.*}}, %[[N]] : i32
// CHECK-NEXT:      %[[OLD:.*]] = scf.if %[[M]] -> (i32) {
// CHECK-NEXT:        %[[A:.*]] = blk.atomic_rmw add %[[PTR]], %[[V]] : !blk.ptr<i32>, i32 -> i32
// CHECK-NEXT:        scf.yield %[[A]] : i32
// CHECK-NEXT:      } else {
// CHECK-NEXT:        %[[Z:.*]] = arith.constant 0 : i32
// CHECK-NEXT:        scf.yield %[[Z]] : i32
// CHECK-NEXT:      }
// CHECK-NEXT:      memref.store %[[OLD]], %[[BUF]][%[[I]]] : memref<16xi32>
// CHECK-NEXT:    }
// CHECK:         scf.for %[[J:.*]] = {{.*}} {
// CHECK:           %[[Q:.*]] = blk.addptr %[[RES]], %{{.*}} : !blk.ptr<i32>, i32
// CHECK-NEXT:      %[[X:.*]] = memref.load %[[BUF]][%[[J]]] : memref<16xi32>
// CHECK-NEXT:      blk.store %[[Q]], %[[X]] : !blk.ptr<i32>
func.func @block_masked(%out: !blk.ptr<i32>, %res: !blk.ptr<i32>, %n: i32) {
  %r = blk.make_range 0 to 16 : tensor<16xi32>
  %nb = blk.splat %n : i32 -> tensor<16xi32>
  %mask = arith.cmpi slt, %r, %nb : tensor<16xi32>
  %base = blk.splat %out : !blk.ptr<i32> -> tensor<16x!blk.ptr<i32>>
  %p = blk.addptr %base, %r : tensor<16x!blk.ptr<i32>>, tensor<16xi32>
  %old = blk.atomic_rmw add %p, %r, %mask : tensor<16x!blk.ptr<i32>>, tensor<16xi32>, tensor<16xi1> -> tensor<16xi32>
  %rb = blk.splat %res : !blk.ptr<i32> -> tensor<16x!blk.ptr<i32>>
  %q = blk.addptr %rb, %r : tensor<16x!blk.ptr<i32>>, tensor<16xi32>
  blk.store %q, %old : tensor<16x!blk.ptr<i32>>
  return
}

// -----

// An unmasked block atomic whose result is unused still runs on every lane.
// CHECK-LABEL: func.func @block_unused
// CHECK:         scf.for
// CHECK-NOT:       scf.if
// CHECK:           blk.atomic_rmw xchg %{{.*}}, %{{.*}} : !blk.ptr<f32>, f32 -> f32
// CHECK:         return
func.func @block_unused(%out: !blk.ptr<f32>, %v: f32) {
  %r = blk.make_range 0 to 8 : tensor<8xi32>
  %base = blk.splat %out : !blk.ptr<f32> -> tensor<8x!blk.ptr<f32>>
  %p = blk.addptr %base, %r : tensor<8x!blk.ptr<f32>>, tensor<8xi32>
  %vb = blk.splat %v : f32 -> tensor<8xf32>
  %old = blk.atomic_rmw xchg %p, %vb : tensor<8x!blk.ptr<f32>>, tensor<8xf32> -> tensor<8xf32>
  return
}

// -----

// CHECK-LABEL: func.func @scalar_masked
// CHECK-SAME:    (%[[P:[^:]*]]: !blk.ptr<f32>, %[[V:[^:]*]]: f32, %[[M:[^:]*]]: i1)
// CHECK-NEXT:    %[[OLD:.*]] = scf.if %[[M]] -> (f32) {
// CHECK-NEXT:      %[[A:.*]] = blk.atomic_cas %[[P]], %[[V]], %[[V]] : !blk.ptr<f32>, f32, f32 -> f32
// CHECK-NEXT:      scf.yield %[[A]] : f32
// CHECK-NEXT:    } else {
// CHECK-NEXT:      %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      scf.yield %[[Z]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    blk.store %[[P]], %[[OLD]] : !blk.ptr<f32>
func.func @scalar_masked(%p: !blk.ptr<f32>, %v: f32, %m: i1) {
  %old = blk.atomic_cas %p, %v, %v, %m : !blk.ptr<f32>, f32, f32, i1 -> f32
  blk.store %p, %old : !blk.ptr<f32>
  return
}

