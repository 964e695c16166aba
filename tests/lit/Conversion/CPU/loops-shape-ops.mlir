// RUN: blockjit-opt %s --convert-blk-to-loops | FileCheck %s

// reshape, permute, join and split get no buffer of their own: the
// consumer's loop nest reads each element from where the op moved it.
//   permute order  -> the source at indices j with j[order[d]] = i_d
//   reshape        -> the source at the delinearized row-major index
//   join           -> select(last index != 0, rhs, lhs) at the other indices
//   split #k       -> the source at the indices with k appended

// A transposed store: the loaded 4x8 tile (a buffer) is read at [j, i].
// CHECK-LABEL: func.func @transpose
// CHECK:         %[[TILE:.*]] = memref.alloca() {{.*}} : memref<4x8xf32>
// CHECK:         scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step
// CHECK:           scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step
// CHECK:             %[[V:.*]] = memref.load %[[TILE]][%[[J]], %[[I]]] : memref<4x8xf32>
// CHECK:             blk.store %{{.*}}, %[[V]] : !blk.ptr<f32>
// CHECK-NOT:     memref.alloca
func.func @transpose(%in: !blk.ptr<f32>, %out: !blk.ptr<f32>) {
  %r = blk.make_range 0 to 32 : tensor<32xi32>
  %r2 = blk.reshape %r : tensor<32xi32> -> tensor<4x8xi32>
  %p = blk.splat %in : !blk.ptr<f32> -> tensor<4x8x!blk.ptr<f32>>
  %a = blk.addptr %p, %r2 : tensor<4x8x!blk.ptr<f32>>, tensor<4x8xi32>
  %x = blk.load %a : tensor<4x8x!blk.ptr<f32>>
  %t = blk.permute %x order = [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  %r3 = blk.reshape %r : tensor<32xi32> -> tensor<8x4xi32>
  %q = blk.splat %out : !blk.ptr<f32> -> tensor<8x4x!blk.ptr<f32>>
  %b = blk.addptr %q, %r3 : tensor<8x4x!blk.ptr<f32>>, tensor<8x4xi32>
  blk.store %b, %t : tensor<8x4x!blk.ptr<f32>>
  return
}

// The reshape of a make_range recomputes it from the row-major index.
// CHECK-LABEL: func.func @reshape_range
// CHECK:         scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step
// CHECK:           scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step
// CHECK:             %[[ROW:.*]] = arith.muli %{{.*}}, %{{.*}} : index
// CHECK:             %[[LIN:.*]] = arith.addi %{{.*}}, %[[J]] : index
// CHECK:             arith.remui %[[LIN]], %{{.*}} : index
// CHECK:             arith.divui %[[LIN]], %{{.*}} : index
// CHECK:             arith.index_cast %{{.*}} : index to i32
// CHECK:             blk.store
func.func @reshape_range(%out: !blk.ptr<i32>) {
  %r = blk.make_range 0 to 32 : tensor<32xi32>
  %r2 = blk.reshape %r : tensor<32xi32> -> tensor<4x8xi32>
  %q = blk.splat %out : !blk.ptr<i32> -> tensor<4x8x!blk.ptr<i32>>
  %b = blk.addptr %q, %r2 : tensor<4x8x!blk.ptr<i32>>, tensor<4x8xi32>
  blk.store %b, %r2 : tensor<4x8x!blk.ptr<i32>>
  return
}

// join selects by the last index; split reads the source at index 1 for its
// second result.
// CHECK-LABEL: func.func @join_split
// CHECK:         %[[X:.*]] = memref.alloca() {{.*}} : memref<16x2xf16>
// CHECK:         memref.store %{{.*}}, %[[X]]
// CHECK:         scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step
// CHECK:           blk.addptr
// CHECK-NEXT:      %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:      %[[H:.*]] = memref.load %[[X]][%[[I]], %[[ONE]]] : memref<16x2xf16>
// CHECK:           blk.store %{{.*}}, %[[H]] : !blk.ptr<f16>
// CHECK:         scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step
// CHECK:           scf.for %[[L:.*]] = %{{.*}} to %{{.*}} step
// CHECK:             %[[SECOND:.*]] = arith.cmpi ne, %[[L]], %{{.*}} : index
// CHECK:             %[[E:.*]] = arith.select %[[SECOND]], %{{.*}}, %{{.*}} : f16
// CHECK:             blk.store %{{.*}}, %[[E]] : !blk.ptr<f16>
func.func @join_split(%in: !blk.ptr<f16>, %out: !blk.ptr<f16>) {
  %r = blk.make_range 0 to 32 : tensor<32xi32>
  %r2 = blk.reshape %r : tensor<32xi32> -> tensor<16x2xi32>
  %p = blk.splat %in : !blk.ptr<f16> -> tensor<16x2x!blk.ptr<f16>>
  %a = blk.addptr %p, %r2 : tensor<16x2x!blk.ptr<f16>>, tensor<16x2xi32>
  %x = blk.load %a : tensor<16x2x!blk.ptr<f16>>
  %lo, %hi = blk.split %x : tensor<16x2xf16> -> tensor<16xf16>
  %h = blk.make_range 0 to 16 : tensor<16xi32>
  %q = blk.splat %out : !blk.ptr<f16> -> tensor<16x!blk.ptr<f16>>
  %b = blk.addptr %q, %h : tensor<16x!blk.ptr<f16>>, tensor<16xi32>
  blk.store %b, %hi : tensor<16x!blk.ptr<f16>>
  %j = blk.join %hi, %lo : tensor<16xf16> -> tensor<16x2xf16>
  %o = blk.splat %out : !blk.ptr<f16> -> tensor<16x2x!blk.ptr<f16>>
  %c = blk.addptr %o, %r2 : tensor<16x2x!blk.ptr<f16>>, tensor<16x2xi32>
  blk.store %c, %j : tensor<16x2x!blk.ptr<f16>>
  return
}
