// RUN: blockjit-opt %s -canonicalize | FileCheck %s

// Things that must NOT fold.

// A nonzero constant offset stays.
// CHECK-LABEL: func.func @addptr_nonzero
// CHECK:         %[[C:.*]] = arith.constant 1 : i32
// CHECK:         blk.addptr %{{.*}}, %[[C]] : !blk.ptr<f32>, i32
func.func @addptr_nonzero(%p: !blk.ptr<f32>) -> !blk.ptr<f32> {
  %c1 = arith.constant 1 : i32
  %a = blk.addptr %p, %c1 : !blk.ptr<f32>, i32
  return %a : !blk.ptr<f32>
}

// A non-constant offset stays.
// CHECK-LABEL: func.func @addptr_dynamic
// CHECK-SAME:    (%[[P:.*]]: !blk.ptr<f32>, %[[N:.*]]: i32)
// CHECK:         blk.addptr %[[P]], %[[N]] : !blk.ptr<f32>, i32
func.func @addptr_dynamic(%p: !blk.ptr<f32>, %n: i32) -> !blk.ptr<f32> {
  %a = blk.addptr %p, %n : !blk.ptr<f32>, i32
  return %a : !blk.ptr<f32>
}

// A non-splat constant offset that contains zeros is not "zero".
// CHECK-LABEL: func.func @addptr_partly_zero
// CHECK:         %[[C:.*]] = arith.constant dense<[0, 1, 0, 2]> : tensor<4xi32>
// CHECK:         blk.addptr %{{.*}}, %[[C]] : tensor<4x!blk.ptr<f16>>, tensor<4xi32>
func.func @addptr_partly_zero(%p: tensor<4x!blk.ptr<f16>>) -> tensor<4x!blk.ptr<f16>> {
  %c = arith.constant dense<[0, 1, 0, 2]> : tensor<4xi32>
  %a = blk.addptr %p, %c : tensor<4x!blk.ptr<f16>>, tensor<4xi32>
  return %a : tensor<4x!blk.ptr<f16>>
}

// A make_range offset starting at 0 is not zero.
// CHECK-LABEL: func.func @addptr_range
// CHECK:         %[[R:.*]] = blk.make_range 0 to 8 : tensor<8xi32>
// CHECK:         blk.addptr %{{.*}}, %[[R]]
func.func @addptr_range(%p: tensor<8x!blk.ptr<f32>>) -> tensor<8x!blk.ptr<f32>> {
  %r = blk.make_range 0 to 8 : tensor<8xi32>
  %a = blk.addptr %p, %r : tensor<8x!blk.ptr<f32>>, tensor<8xi32>
  return %a : tensor<8x!blk.ptr<f32>>
}

// A splat of a non-constant stays a splat.
// CHECK-LABEL: func.func @splat_dynamic
// CHECK-SAME:    (%[[X:.*]]: f32)
// CHECK:         blk.splat %[[X]] : f32 -> tensor<8xf32>
// CHECK-NOT:     arith.constant
func.func @splat_dynamic(%x: f32) -> tensor<8xf32> {
  %s = blk.splat %x : f32 -> tensor<8xf32>
  return %s : tensor<8xf32>
}

// A splat of a pointer stays (pointers are never constants).
// CHECK-LABEL: func.func @splat_ptr
// CHECK:         blk.splat %{{.*}} : !blk.ptr<f32> -> tensor<8x!blk.ptr<f32>>
func.func @splat_ptr(%p: !blk.ptr<f32>) -> tensor<8x!blk.ptr<f32>> {
  %s = blk.splat %p : !blk.ptr<f32> -> tensor<8x!blk.ptr<f32>>
  return %s : tensor<8x!blk.ptr<f32>>
}

// A real broadcast of a non-splat value stays.
// CHECK-LABEL: func.func @broadcast_dynamic
// CHECK-SAME:    (%[[X:.*]]: tensor<1x4xf32>)
// CHECK:         blk.broadcast %[[X]] : tensor<1x4xf32> -> tensor<8x4xf32>
func.func @broadcast_dynamic(%x: tensor<1x4xf32>) -> tensor<8x4xf32> {
  %b = blk.broadcast %x : tensor<1x4xf32> -> tensor<8x4xf32>
  return %b : tensor<8x4xf32>
}

// Broadcast of a non-splat constant stays (only splat constants fold).
// CHECK-LABEL: func.func @broadcast_nonsplat_constant
// CHECK:         %[[C:.*]] = arith.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]]> : tensor<1x4xf32>
// CHECK:         blk.broadcast %[[C]] : tensor<1x4xf32> -> tensor<8x4xf32>
func.func @broadcast_nonsplat_constant() -> tensor<8x4xf32> {
  %c = arith.constant dense<[[1.0, 2.0, 3.0, 4.0]]> : tensor<1x4xf32>
  %b = blk.broadcast %c : tensor<1x4xf32> -> tensor<8x4xf32>
  return %b : tensor<8x4xf32>
}

// Broadcast of expand_dims is not broadcast(broadcast): both stay.
// CHECK-LABEL: func.func @broadcast_of_expand
// CHECK:         %[[E:.*]] = blk.expand_dims %{{.*}} axis = 0 : tensor<4xf32> -> tensor<1x4xf32>
// CHECK:         blk.broadcast %[[E]] : tensor<1x4xf32> -> tensor<8x4xf32>
func.func @broadcast_of_expand(%x: tensor<4xf32>) -> tensor<8x4xf32> {
  %e = blk.expand_dims %x axis = 0 : tensor<4xf32> -> tensor<1x4xf32>
  %b = blk.broadcast %e : tensor<1x4xf32> -> tensor<8x4xf32>
  return %b : tensor<8x4xf32>
}

// expand_dims of a non-splat value stays; so does expand_dims of a make_range.
// CHECK-LABEL: func.func @expand_dynamic
// CHECK:         blk.expand_dims %{{.*}} axis = 1 : tensor<4xf32> -> tensor<4x1xf32>
// CHECK:         %[[R:.*]] = blk.make_range 0 to 16 : tensor<16xi32>
// CHECK:         blk.expand_dims %[[R]] axis = 0 : tensor<16xi32> -> tensor<1x16xi32>
func.func @expand_dynamic(%x: tensor<4xf32>) -> (tensor<4x1xf32>, tensor<1x16xi32>) {
  %e = blk.expand_dims %x axis = 1 : tensor<4xf32> -> tensor<4x1xf32>
  %r = blk.make_range 0 to 16 : tensor<16xi32>
  %f = blk.expand_dims %r axis = 0 : tensor<16xi32> -> tensor<1x16xi32>
  return %e, %f : tensor<4x1xf32>, tensor<1x16xi32>
}

// Reductions have no folders, not even of a splat.
// CHECK-LABEL: func.func @reduce_of_splat
// CHECK:         %[[S:.*]] = blk.splat %{{.*}} : f32 -> tensor<8xf32>
// CHECK:         blk.reduce max %[[S]] axis = 0 : tensor<8xf32> -> f32
func.func @reduce_of_splat(%x: f32) -> f32 {
  %s = blk.splat %x : f32 -> tensor<8xf32>
  %m = blk.reduce max %s axis = 0 : tensor<8xf32> -> f32
  return %m : f32
}

// Loads with a used result and all stores stay.
// CHECK-LABEL: func.func @memory
// CHECK:         %[[L:.*]] = blk.load %{{.*}}, %{{.*}} : tensor<8x!blk.ptr<f32>>
// CHECK:         blk.store %{{.*}}, %[[L]], %{{.*}} : tensor<8x!blk.ptr<f32>>
// CHECK:         blk.store %{{.*}}, %[[L]] : tensor<8x!blk.ptr<f32>>
func.func @memory(%p: tensor<8x!blk.ptr<f32>>, %m: tensor<8xi1>) {
  %l = blk.load %p, %m : tensor<8x!blk.ptr<f32>>
  blk.store %p, %l, %m : tensor<8x!blk.ptr<f32>>
  blk.store %p, %l : tensor<8x!blk.ptr<f32>>
  return
}
